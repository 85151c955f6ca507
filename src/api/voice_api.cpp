#include "api/voice_impl.hpp"
#include "core/error.hpp"

namespace qwen3tts {

Voice Voice::load(const std::string& path) {
    auto impl = std::make_shared<Impl>();
    impl->file = load_voice_file(path);
    impl->path = path;
    return Voice(std::move(impl));
}

void Voice::save(const std::string& path) const {
    if (!impl_) throw Error(ErrorCode::invalid_argument, "cannot save an empty voice");
    save_voice_file(path, impl_->file);
}

bool Voice::in_context() const {
    return impl_ && impl_->file.voice.in_context();
}
std::string Voice::ref_text() const {
    return impl_ ? impl_->file.voice.ref_text : "";
}
int64_t Voice::ref_frames() const {
    if (!impl_ || impl_->file.n_codebook <= 0) return 0;
    return int64_t(impl_->file.voice.ref_codes.size()) / impl_->file.n_codebook;
}

}  // namespace qwen3tts
