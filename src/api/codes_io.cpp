#include "core/error.hpp"
#include "core/npy.hpp"
#include "qwen3tts/qwen3tts.hpp"

namespace qwen3tts {

namespace {
constexpr int64_t kCodebooks = 16;
constexpr int64_t kCodebookSize = 2048;
}  // namespace

void save_codes_npy(const std::string& path, const std::vector<int32_t>& codes) {
    if (codes.size() % kCodebooks != 0)
        throw Error(ErrorCode::invalid_argument, "codes are not a whole number of 16-code frames");
    const std::vector<int64_t> wide(codes.begin(), codes.end());
    write_npy_i64(path, wide.data(), {int64_t(codes.size()) / kCodebooks, kCodebooks});
}

std::vector<int32_t> load_codes_npy(const std::string& path) {
    const NpyArray a = read_npy(path);
    if (a.shape.size() != 2 || a.shape[1] != kCodebooks)
        throw Error(ErrorCode::invalid_argument,
                    path + ": codes must have shape [frames, 16], got " + [&] {
                        std::string s = "[";
                        for (size_t i = 0; i < a.shape.size(); ++i)
                            s += (i ? ", " : "") + std::to_string(a.shape[i]);
                        return s + "]";
                    }());
    const std::vector<int64_t> wide = a.to_i64();
    std::vector<int32_t> codes(wide.size());
    for (size_t i = 0; i < wide.size(); ++i) {
        if (wide[i] < 0 || wide[i] >= kCodebookSize)
            throw Error(ErrorCode::invalid_argument,
                        path + ": code " + std::to_string(wide[i]) + " at frame " +
                            std::to_string(i / kCodebooks) + ", codebook " +
                            std::to_string(i % kCodebooks) + " is outside [0, 2048)");
        codes[i] = int32_t(wide[i]);
    }
    return codes;
}

}  // namespace qwen3tts
