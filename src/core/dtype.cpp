#include "core/dtype.hpp"

#include "core/error.hpp"

namespace qwen3tts {

size_t dtype_size(DType t) {
    switch (t) {
        case DType::f32:
            return 4;
        case DType::f16:
            return 2;
        case DType::bf16:
            return 2;
        case DType::i64:
            return 8;
        case DType::i32:
            return 4;
        case DType::u8:
            return 1;
        case DType::boolean:
            return 1;
    }
    QWEN3TTS_ASSERT(false);
}

const char* dtype_name(DType t) {
    switch (t) {
        case DType::f32:
            return "F32";
        case DType::f16:
            return "F16";
        case DType::bf16:
            return "BF16";
        case DType::i64:
            return "I64";
        case DType::i32:
            return "I32";
        case DType::u8:
            return "U8";
        case DType::boolean:
            return "BOOL";
    }
    QWEN3TTS_ASSERT(false);
}

float f16_to_f32(uint16_t h) {
    const uint32_t sign = uint32_t(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t mant = h & 0x3ffu;
    uint32_t bits;
    if (exp == 0) {
        if (mant == 0) {
            bits = sign;
        } else {  // subnormal: normalise
            exp = 127 - 15 + 1;
            while ((mant & 0x400u) == 0) {
                mant <<= 1;
                --exp;
            }
            mant &= 0x3ffu;
            bits = sign | (exp << 23) | (mant << 13);
        }
    } else if (exp == 0x1f) {
        bits = sign | 0x7f800000u | (mant << 13);
    } else {
        bits = sign | ((exp - 15 + 127) << 23) | (mant << 13);
    }
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

}  // namespace qwen3tts
