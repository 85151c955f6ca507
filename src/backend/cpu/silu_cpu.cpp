#include "backend/cpu/silu_cpu.hpp"

#include <cmath>
#include <cstring>

#include "backend/cpu/cpu_features.hpp"
#include "backend/cpu/simd_targets.hpp"

namespace qwen3tts::cpu {

namespace {

// exp(t) for t outside [-110, 90] is 0 or +inf once rounded to float: clamping there keeps
// 2^k a normal double.
constexpr double kLowest = -110.0;
constexpr double kHighest = 90.0;
// Adding 1.5·2^52 rounds a double of magnitude < 2^51 to an integer, which then sits in the
// low bits of the sum's mantissa.
constexpr double kShifter = 0x1.8p52;
constexpr int64_t kShifterBits = 0x4338000000000000;
constexpr double kLog2e = 0x1.71547652b82fep0;
// ln 2 = kLn2Hi + kLn2Lo (the nearest double and the remainder).
constexpr double kLn2Hi = 0x1.62e42fefa39efp-1;
constexpr double kLn2Lo = 0x1.abc9e3b39803fp-56;
// 1/k! for k = 11 .. 0: e^r on |r| <= ln2/2 to ~6e-15 relative.
constexpr double kTaylor[12] = {
    1.0 / 39916800.0, 1.0 / 3628800.0, 1.0 / 362880.0, 1.0 / 40320.0, 1.0 / 5040.0, 1.0 / 720.0,
    1.0 / 120.0,      1.0 / 24.0,      1.0 / 6.0,      0.5,           1.0,          1.0};

QWEN3TTS_AVX512 inline __m512d exp_pd_avx512(__m512d t) {
    // max/min return their second operand when it is NaN: NaN goes through.
    t = _mm512_min_pd(_mm512_set1_pd(kHighest), _mm512_max_pd(_mm512_set1_pd(kLowest), t));
    const __m512d kd = _mm512_fmadd_pd(t, _mm512_set1_pd(kLog2e), _mm512_set1_pd(kShifter));
    const __m512d k = _mm512_sub_pd(kd, _mm512_set1_pd(kShifter));
    __m512d r = _mm512_fnmadd_pd(k, _mm512_set1_pd(kLn2Hi), t);
    r = _mm512_fnmadd_pd(k, _mm512_set1_pd(kLn2Lo), r);
    __m512d p = _mm512_set1_pd(kTaylor[0]);
#pragma GCC unroll 11
    for (int i = 1; i < 12; ++i) p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(kTaylor[i]));
    const __m512i two_k = _mm512_slli_epi64(
        _mm512_add_epi64(_mm512_castpd_si512(kd), _mm512_set1_epi64(1023 - kShifterBits)), 52);
    return _mm512_mul_pd(p, _mm512_castsi512_pd(two_k));
}

// exp(−v) of 16 floats, each rounded to float once.
QWEN3TTS_AVX512 inline __m512 exp_neg_ps_avx512(__m512 v) {
    const __m512 t = _mm512_sub_ps(_mm512_setzero_ps(), v);
    const __m256 lo = _mm512_cvtpd_ps(exp_pd_avx512(_mm512_cvtps_pd(_mm512_castps512_ps256(t))));
    const __m256 hi = _mm512_cvtpd_ps(exp_pd_avx512(_mm512_cvtps_pd(_mm512_extractf32x8_ps(t, 1))));
    return _mm512_insertf32x8(_mm512_castps256_ps512(lo), hi, 1);
}

QWEN3TTS_AVX512 void silu_mul_avx512(const float* gate, const float* up, int64_t n, float* out) {
    for (int64_t i = 0; i < n; i += 16) {
        const __mmask16 m = n - i >= 16 ? __mmask16(0xffff) : __mmask16((1u << (n - i)) - 1);
        const __m512 g = _mm512_maskz_loadu_ps(m, gate + i);
        const __m512 s =
            _mm512_div_ps(g, _mm512_add_ps(_mm512_set1_ps(1.0f), exp_neg_ps_avx512(g)));
        _mm512_mask_storeu_ps(out + i, m,
                              up ? _mm512_mul_ps(s, _mm512_maskz_loadu_ps(m, up + i)) : s);
    }
}

QWEN3TTS_AVX2 inline __m256d exp_pd_avx2(__m256d t) {
    t = _mm256_min_pd(_mm256_set1_pd(kHighest), _mm256_max_pd(_mm256_set1_pd(kLowest), t));
    const __m256d kd = _mm256_fmadd_pd(t, _mm256_set1_pd(kLog2e), _mm256_set1_pd(kShifter));
    const __m256d k = _mm256_sub_pd(kd, _mm256_set1_pd(kShifter));
    __m256d r = _mm256_fnmadd_pd(k, _mm256_set1_pd(kLn2Hi), t);
    r = _mm256_fnmadd_pd(k, _mm256_set1_pd(kLn2Lo), r);
    __m256d p = _mm256_set1_pd(kTaylor[0]);
#pragma GCC unroll 11
    for (int i = 1; i < 12; ++i) p = _mm256_fmadd_pd(p, r, _mm256_set1_pd(kTaylor[i]));
    const __m256i two_k = _mm256_slli_epi64(
        _mm256_add_epi64(_mm256_castpd_si256(kd), _mm256_set1_epi64x(1023 - kShifterBits)), 52);
    return _mm256_mul_pd(p, _mm256_castsi256_pd(two_k));
}

QWEN3TTS_AVX2 inline __m256 exp_neg_ps_avx2(__m256 v) {
    const __m256 t = _mm256_sub_ps(_mm256_setzero_ps(), v);
    const __m128 lo = _mm256_cvtpd_ps(exp_pd_avx2(_mm256_cvtps_pd(_mm256_castps256_ps128(t))));
    const __m128 hi = _mm256_cvtpd_ps(exp_pd_avx2(_mm256_cvtps_pd(_mm256_extractf128_ps(t, 1))));
    return _mm256_insertf128_ps(_mm256_castps128_ps256(lo), hi, 1);
}

float silu_one(float g) {
    return g / (1.0f + exp_via_double(-g));
}

QWEN3TTS_AVX2 void silu_mul_avx2(const float* gate, const float* up, int64_t n, float* out) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256 g = _mm256_loadu_ps(gate + i);
        const __m256 s = _mm256_div_ps(g, _mm256_add_ps(_mm256_set1_ps(1.0f), exp_neg_ps_avx2(g)));
        _mm256_storeu_ps(out + i, up ? _mm256_mul_ps(s, _mm256_loadu_ps(up + i)) : s);
    }
    for (; i < n; ++i) out[i] = up ? silu_one(gate[i]) * up[i] : silu_one(gate[i]);
}

void silu_mul_generic(const float* gate, const float* up, int64_t n, float* out) {
    for (int64_t i = 0; i < n; ++i) out[i] = up ? silu_one(gate[i]) * up[i] : silu_one(gate[i]);
}

// up == nullptr: silu alone.
void silu_dispatch(const float* gate, const float* up, int64_t n, float* out) {
    switch (active_isa()) {
        case Isa::avx512:
            silu_mul_avx512(gate, up, n, out);
            return;
        case Isa::avx2:
            silu_mul_avx2(gate, up, n, out);
            return;
        case Isa::generic:
            break;
    }
    silu_mul_generic(gate, up, n, out);
}

}  // namespace

float exp_via_double(float value) {
    double t = value;
    if (t < kLowest) t = kLowest;  // comparisons with NaN are false: NaN goes through
    if (t > kHighest) t = kHighest;
    const double kd = std::fma(t, kLog2e, kShifter);
    const double k = kd - kShifter;
    double r = std::fma(-k, kLn2Hi, t);
    r = std::fma(-k, kLn2Lo, r);
    double p = kTaylor[0];
    for (int i = 1; i < 12; ++i) p = std::fma(p, r, kTaylor[i]);
    uint64_t bits;
    std::memcpy(&bits, &kd, sizeof bits);
    const uint64_t two_k_bits = (bits + uint64_t(1023 - kShifterBits)) << 52;
    double two_k;
    std::memcpy(&two_k, &two_k_bits, sizeof two_k);
    return static_cast<float>(p * two_k);
}

void silu_mul(const float* gate, const float* up, int64_t n, float* out) {
    silu_dispatch(gate, up, n, out);
}

void silu_inplace(float* x, int64_t n) {
    silu_dispatch(x, nullptr, n, x);
}

}  // namespace qwen3tts::cpu
