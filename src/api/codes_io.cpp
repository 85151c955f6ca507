#include "api/model_impl.hpp"
#include "core/error.hpp"
#include "core/npy.hpp"
#include "qwen3tts/qwen3tts.hpp"

namespace qwen3tts {

void save_codes_npy(const std::string& path, const std::vector<int32_t>& codes,
                    const Model& model) {
    const int64_t n_cb = model.impl()->model->config().talker.num_code_groups;
    if (n_cb <= 0 || codes.size() % size_t(n_cb) != 0)
        throw Error(ErrorCode::invalid_argument,
                    "codes are not a whole number of " + std::to_string(n_cb) + "-code frames");
    const std::vector<int64_t> wide(codes.begin(), codes.end());
    write_npy_i64(path, wide.data(), {int64_t(codes.size()) / n_cb, n_cb});
}

std::vector<int32_t> load_codes_npy(const std::string& path, const Model& model) {
    const CodecDecoderConfig& codec = model.impl()->codec_config();
    const int64_t n_cb = codec.n_codebook;
    const NpyArray a = read_npy(path);
    if (a.shape.size() != 2 || a.shape[1] != n_cb)
        throw Error(
            ErrorCode::invalid_argument,
            path + ": codes must have shape [frames, " + std::to_string(n_cb) + "], got " + [&] {
                std::string s = "[";
                for (size_t i = 0; i < a.shape.size(); ++i)
                    s += (i ? ", " : "") + std::to_string(a.shape[i]);
                return s + "]";
            }());
    const std::vector<int64_t> wide = a.to_i64();
    std::vector<int32_t> codes(wide.size());
    for (size_t i = 0; i < wide.size(); ++i) {
        if (wide[i] < 0 || wide[i] >= codec.codebook_size)
            throw Error(ErrorCode::invalid_argument,
                        path + ": code " + std::to_string(wide[i]) + " at frame " +
                            std::to_string(i / size_t(n_cb)) + ", codebook " +
                            std::to_string(i % size_t(n_cb)) + " is outside [0, " +
                            std::to_string(codec.codebook_size) + ")");
        codes[i] = int32_t(wide[i]);
    }
    return codes;
}

}  // namespace qwen3tts
