#include "server/voice_cloning.hpp"

#include <unistd.h>

#include <cstdlib>

#include "server/api_error.hpp"

namespace qwen3tts::server {

namespace {

// The clip in a temporary file for the audio reader; removed when this goes.
class TempFile {
  public:
    explicit TempFile(const std::string& data) {
        const char* tmp = std::getenv("TMPDIR");
        path_ = std::string(tmp && *tmp ? tmp : "/tmp") + "/qwen3tts-clip-XXXXXX";
        const int fd = ::mkstemp(path_.data());
        if (fd < 0) throw ApiError(500, "cannot create a temporary file for the reference clip");
        const bool ok = ::write(fd, data.data(), data.size()) == ssize_t(data.size());
        ::close(fd);
        if (!ok) {
            ::unlink(path_.c_str());
            throw ApiError(500, "cannot write the reference clip to a temporary file");
        }
    }
    ~TempFile() { ::unlink(path_.c_str()); }
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;
    const std::string& path() const { return path_; }

  private:
    std::string path_;
};

}  // namespace

Voice VoiceCloning::clone(const Model& model, const std::string& clip, VoiceCloneOptions options,
                          const std::string& field) {
    if (running_.fetch_add(1) >= kMaxRunning) {
        --running_;
        throw ApiError(429, "too many voice clones at once; retry shortly", "",
                       "rate_limit_exceeded");
    }
    struct Release {
        std::atomic<int>& n;
        ~Release() { --n; }
    } release{running_};
    const TempFile file(clip);
    options.max_seconds = max_seconds_;
    try {
        return model.clone_voice(file.path(), options);
    } catch (const Error& e) {
        throw ApiError(400, field + ": " + e.what(), field);
    }
}

}  // namespace qwen3tts::server
