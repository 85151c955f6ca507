// NumPy .npy files (format versions 1-3, little-endian, C order): the exchange format of the
// reference data and of `qwen3tts codes --out`. Reading converts to float or int64 on request.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace qwen3tts {

struct NpyArray {
    std::string descr;  // numpy dtype string, e.g. "<f4", "<i8"
    std::vector<int64_t> shape;
    std::vector<uint8_t> bytes;  // raw element data
    std::string path;            // the file it was read from, for messages ("" if none)

    int64_t numel() const;
    std::vector<float> to_f32() const;    // from f4/f8/i4/i8
    std::vector<int64_t> to_i64() const;  // from i4/i8
};

NpyArray read_npy(const std::string& path);

void write_npy_f32(const std::string& path, const float* data, const std::vector<int64_t>& shape);
void write_npy_i64(const std::string& path, const int64_t* data, const std::vector<int64_t>& shape);

}  // namespace qwen3tts
