// GCC 12's AVX-512 headers trip -Wmaybe-uninitialized in some intrinsics' inline bodies
// (clang has no such warning).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include "backend/cpu/mimi_elu.hpp"

#include <immintrin.h>

#include <cmath>

#include "backend/cpu/cpu_features.hpp"

namespace qwen3tts::cpu {

namespace {

constexpr float kLog2e = 1.44269504088896341f;
constexpr float kLn2Hi = 0.693359375f;  // short mantissa: k·kLn2Hi exact for |k| < 2^9
constexpr float kLn2Lo = -2.12194440e-4f;
constexpr float kMinX = -87.0f;  // exp(-87) − 1 == −1 in f32; keeps 2^k normal
// 1/n! for the polynomials.
constexpr float kC2 = 1.0f / 2, kC3 = 1.0f / 6, kC4 = 1.0f / 24, kC5 = 1.0f / 120, kC6 = 1.0f / 720,
                kC7 = 1.0f / 5040, kC8 = 1.0f / 40320, kC9 = 1.0f / 362880;

void elu_libm(const float* x, int64_t n, float* y) {
    for (int64_t i = 0; i < n; ++i) y[i] = x[i] > 0.0f ? x[i] : std::expm1(x[i]);
}

__attribute__((target("avx512f,avx512dq"))) inline __m512 elu16(__m512 x) {
    // Small |x|: expm1(x) = x + x²(1/2 + x(1/6 + …)).
    __m512 p = _mm512_fmadd_ps(_mm512_set1_ps(kC9), x, _mm512_set1_ps(kC8));
    p = _mm512_fmadd_ps(p, x, _mm512_set1_ps(kC7));
    p = _mm512_fmadd_ps(p, x, _mm512_set1_ps(kC6));
    p = _mm512_fmadd_ps(p, x, _mm512_set1_ps(kC5));
    p = _mm512_fmadd_ps(p, x, _mm512_set1_ps(kC4));
    p = _mm512_fmadd_ps(p, x, _mm512_set1_ps(kC3));
    p = _mm512_fmadd_ps(p, x, _mm512_set1_ps(kC2));
    const __m512 small = _mm512_fmadd_ps(_mm512_mul_ps(p, x), x, x);
    // Larger |x|: 2^k·exp(r) − 1, r = x − k·ln2.
    const __m512 xc = _mm512_max_ps(x, _mm512_set1_ps(kMinX));
    const __m512 k =
        _mm512_maskz_roundscale_ps(__mmask16(0xffff), _mm512_mul_ps(xc, _mm512_set1_ps(kLog2e)),
                                   _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_fnmadd_ps(k, _mm512_set1_ps(kLn2Hi), xc);
    r = _mm512_fnmadd_ps(k, _mm512_set1_ps(kLn2Lo), r);
    __m512 e = _mm512_fmadd_ps(_mm512_set1_ps(kC7), r, _mm512_set1_ps(kC6));
    e = _mm512_fmadd_ps(e, r, _mm512_set1_ps(kC5));
    e = _mm512_fmadd_ps(e, r, _mm512_set1_ps(kC4));
    e = _mm512_fmadd_ps(e, r, _mm512_set1_ps(kC3));
    e = _mm512_fmadd_ps(e, r, _mm512_set1_ps(kC2));
    e = _mm512_fmadd_ps(e, r, _mm512_set1_ps(1.0f));
    e = _mm512_fmadd_ps(e, r, _mm512_set1_ps(1.0f));
    const __m512 big = _mm512_sub_ps(_mm512_scalef_ps(e, k), _mm512_set1_ps(1.0f));
    const __m512 absx = _mm512_abs_ps(x);
    const __mmask16 use_small = _mm512_cmp_ps_mask(absx, _mm512_set1_ps(0.5f), _CMP_LE_OQ);
    const __m512 neg = _mm512_mask_blend_ps(use_small, big, small);
    const __mmask16 pos = _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_GT_OQ);
    return _mm512_mask_blend_ps(pos, neg, x);
}

__attribute__((target("avx512f,avx512dq"))) void elu_avx512(const float* x, int64_t n, float* y) {
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) _mm512_storeu_ps(y + i, elu16(_mm512_loadu_ps(x + i)));
    if (i < n) {
        const __mmask16 m = __mmask16((1u << (n - i)) - 1);
        _mm512_mask_storeu_ps(y + i, m, elu16(_mm512_maskz_loadu_ps(m, x + i)));
    }
}

__attribute__((target("avx2,fma"))) inline __m256 elu8(__m256 x) {
    __m256 p = _mm256_fmadd_ps(_mm256_set1_ps(kC9), x, _mm256_set1_ps(kC8));
    p = _mm256_fmadd_ps(p, x, _mm256_set1_ps(kC7));
    p = _mm256_fmadd_ps(p, x, _mm256_set1_ps(kC6));
    p = _mm256_fmadd_ps(p, x, _mm256_set1_ps(kC5));
    p = _mm256_fmadd_ps(p, x, _mm256_set1_ps(kC4));
    p = _mm256_fmadd_ps(p, x, _mm256_set1_ps(kC3));
    p = _mm256_fmadd_ps(p, x, _mm256_set1_ps(kC2));
    const __m256 small = _mm256_fmadd_ps(_mm256_mul_ps(p, x), x, x);
    const __m256 xc = _mm256_max_ps(x, _mm256_set1_ps(kMinX));
    const __m256 k = _mm256_round_ps(_mm256_mul_ps(xc, _mm256_set1_ps(kLog2e)),
                                     _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 r = _mm256_fnmadd_ps(k, _mm256_set1_ps(kLn2Hi), xc);
    r = _mm256_fnmadd_ps(k, _mm256_set1_ps(kLn2Lo), r);
    __m256 e = _mm256_fmadd_ps(_mm256_set1_ps(kC7), r, _mm256_set1_ps(kC6));
    e = _mm256_fmadd_ps(e, r, _mm256_set1_ps(kC5));
    e = _mm256_fmadd_ps(e, r, _mm256_set1_ps(kC4));
    e = _mm256_fmadd_ps(e, r, _mm256_set1_ps(kC3));
    e = _mm256_fmadd_ps(e, r, _mm256_set1_ps(kC2));
    e = _mm256_fmadd_ps(e, r, _mm256_set1_ps(1.0f));
    e = _mm256_fmadd_ps(e, r, _mm256_set1_ps(1.0f));
    // 2^k by building the exponent bits (k in [-126, 0] here, so the result is normal).
    const __m256i bits =
        _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(k), _mm256_set1_epi32(127)), 23);
    const __m256 big =
        _mm256_sub_ps(_mm256_mul_ps(e, _mm256_castsi256_ps(bits)), _mm256_set1_ps(1.0f));
    const __m256 absx = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), x);
    const __m256 use_small = _mm256_cmp_ps(absx, _mm256_set1_ps(0.5f), _CMP_LE_OQ);
    const __m256 neg = _mm256_blendv_ps(big, small, use_small);
    const __m256 pos = _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_GT_OQ);
    return _mm256_blendv_ps(neg, x, pos);
}

__attribute__((target("avx2,fma"))) void elu_avx2(const float* x, int64_t n, float* y) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, elu8(_mm256_loadu_ps(x + i)));
    if (i < n) elu_libm(x + i, n - i, y + i);
}

}  // namespace

void elu(const float* x, int64_t n, float* y) {
    switch (active_isa()) {
        case Isa::avx512:
            elu_avx512(x, n, y);
            return;
        case Isa::avx2:
            elu_avx2(x, n, y);
            return;
        case Isa::generic:
            break;
    }
    elu_libm(x, n, y);
}

}  // namespace qwen3tts::cpu
