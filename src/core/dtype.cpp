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

uint16_t f32_to_f16(float f) {
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    const uint16_t sign = uint16_t((bits >> 16) & 0x8000u);
    const uint32_t abs = bits & 0x7fffffffu;
    if (abs > 0x7f800000u) return uint16_t(sign | 0x7e00u | ((abs >> 13) & 0x3ffu));  // NaN
    if (abs >= 0x477ff000u) return uint16_t(sign | 0x7c00u);  // rounds beyond 65504: inf
    if (abs < 0x38800000u) {                                  // below 2^-14: subnormal or zero
        if (abs < 0x33000000u) return sign;                   // below half the smallest subnormal
        const uint32_t mant = (abs & 0x7fffffu) | 0x800000u;
        const int shift = 126 - int(abs >> 23);  // 14..24: to units of 2^-24
        const uint32_t half = 1u << (shift - 1), rest = mant & ((1u << shift) - 1);
        uint32_t q = mant >> shift;
        if (rest > half || (rest == half && (q & 1u))) ++q;
        return uint16_t(sign | q);
    }
    // Normal: rebias the exponent, round the 23-bit mantissa to 10 bits (a carry may bump
    // the exponent, which is the right result).
    const uint32_t rebased = abs - (uint32_t(127 - 15) << 23);
    const uint32_t rest = rebased & 0x1fffu;
    uint32_t h = rebased >> 13;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;
    return uint16_t(sign | h);
}

}  // namespace qwen3tts
