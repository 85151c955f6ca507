// Storage element types of checkpoint tensors and scalar conversions between them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace qwen3tts {

enum class DType { f32, f16, bf16, i64, i32, u8, boolean };

size_t dtype_size(DType t);
const char* dtype_name(DType t);  // safetensors spelling: "F32", "BF16", ...

// bf16 is the upper half of an IEEE f32, so widening is exact.
inline float bf16_to_f32(uint16_t h) {
    uint32_t bits = uint32_t(h) << 16;
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

// Round to nearest even, as torch does when casting f32 to bf16.
inline uint16_t f32_to_bf16(float f) {
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    if ((bits & 0x7fffffffu) > 0x7f800000u) return uint16_t((bits >> 16) | 0x40);  // NaN stays NaN
    bits += 0x7fffu + ((bits >> 16) & 1u);
    return uint16_t(bits >> 16);
}

float f16_to_f32(uint16_t h);
// Round to nearest even (as F16C's vcvtps2ph with rounding mode 0): subnormals kept, values
// beyond the f16 range become ±inf, NaN stays NaN.
uint16_t f32_to_f16(float f);

}  // namespace qwen3tts
