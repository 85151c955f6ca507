#include "backend/cpu/codec_elementwise.hpp"

#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <cmath>

#include "backend/cpu/cpu_features.hpp"
#include "core/thread_pool.hpp"

namespace qwen3tts::cpu {

namespace {

// π split for Cody-Waite reduction with FMA (three parts, the first two with short mantissas
// so k·part is exact for |k| < 2^12 or so).
constexpr float kPiA = 3.1414794921875f;
constexpr float kPiB = 0.00011315941810607910156f;
constexpr float kPiC = 1.9841872589410058936e-09f;
constexpr float kInvPi = 0.318309886183790671538f;
// Taylor coefficients of sin on [-π/2, π/2] up to r^13 (truncation error < 1e-9).
constexpr float kS3 = -1.0f / 6.0f;
constexpr float kS5 = 1.0f / 120.0f;
constexpr float kS7 = -1.0f / 5040.0f;
constexpr float kS9 = 1.0f / 362880.0f;
constexpr float kS11 = -1.0f / 39916800.0f;
constexpr float kS13 = 1.0f / 6227020800.0f;

__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"))) inline __m512 sin_sq_avx512(
    __m512 x) {
    // maskz form: the plain intrinsic trips GCC 12's -Wmaybe-uninitialized.
    const __m512 k =
        _mm512_maskz_roundscale_ps(__mmask16(0xffff), _mm512_mul_ps(x, _mm512_set1_ps(kInvPi)),
                                   _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_fnmadd_ps(k, _mm512_set1_ps(kPiA), x);
    r = _mm512_fnmadd_ps(k, _mm512_set1_ps(kPiB), r);
    r = _mm512_fnmadd_ps(k, _mm512_set1_ps(kPiC), r);
    const __m512 r2 = _mm512_mul_ps(r, r);
    __m512 p = _mm512_fmadd_ps(_mm512_set1_ps(kS13), r2, _mm512_set1_ps(kS11));
    p = _mm512_fmadd_ps(p, r2, _mm512_set1_ps(kS9));
    p = _mm512_fmadd_ps(p, r2, _mm512_set1_ps(kS7));
    p = _mm512_fmadd_ps(p, r2, _mm512_set1_ps(kS5));
    p = _mm512_fmadd_ps(p, r2, _mm512_set1_ps(kS3));
    const __m512 s = _mm512_fmadd_ps(_mm512_mul_ps(p, r2), r, r);  // sin(r) = ±sin(x)
    return _mm512_mul_ps(s, s);
}

__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"))) void snake_rows_avx512(
    const float* x, int64_t ldx, int64_t r0, int64_t r1, int n_ch, const float* a,
    const float* inv_b, float* y, int64_t ldy) {
    for (int64_t t = r0; t < r1; ++t) {
        const float* xr = x + t * ldx;
        float* yr = y + t * ldy;
        for (int c = 0; c < n_ch; c += 16) {
            const __mmask16 m =
                n_ch - c >= 16 ? __mmask16(0xffff) : __mmask16((1u << (n_ch - c)) - 1);
            const __m512 v = _mm512_maskz_loadu_ps(m, xr + c);
            const __m512 s2 = sin_sq_avx512(_mm512_mul_ps(v, _mm512_maskz_loadu_ps(m, a + c)));
            _mm512_mask_storeu_ps(yr + c, m,
                                  _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, inv_b + c), s2, v));
        }
    }
}

__attribute__((target("avx2,fma"))) inline __m256 sin_sq_avx2(__m256 x) {
    const __m256 k = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(kInvPi)),
                                     _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 r = _mm256_fnmadd_ps(k, _mm256_set1_ps(kPiA), x);
    r = _mm256_fnmadd_ps(k, _mm256_set1_ps(kPiB), r);
    r = _mm256_fnmadd_ps(k, _mm256_set1_ps(kPiC), r);
    const __m256 r2 = _mm256_mul_ps(r, r);
    __m256 p = _mm256_fmadd_ps(_mm256_set1_ps(kS13), r2, _mm256_set1_ps(kS11));
    p = _mm256_fmadd_ps(p, r2, _mm256_set1_ps(kS9));
    p = _mm256_fmadd_ps(p, r2, _mm256_set1_ps(kS7));
    p = _mm256_fmadd_ps(p, r2, _mm256_set1_ps(kS5));
    p = _mm256_fmadd_ps(p, r2, _mm256_set1_ps(kS3));
    const __m256 s = _mm256_fmadd_ps(_mm256_mul_ps(p, r2), r, r);
    return _mm256_mul_ps(s, s);
}

__attribute__((target("avx2,fma"))) void snake_rows_avx2(const float* x, int64_t ldx, int64_t r0,
                                                         int64_t r1, int n_ch, const float* a,
                                                         const float* inv_b, float* y,
                                                         int64_t ldy) {
    const int n_vec = n_ch / 8 * 8;
    for (int64_t t = r0; t < r1; ++t) {
        const float* xr = x + t * ldx;
        float* yr = y + t * ldy;
        int c = 0;
        for (; c < n_vec; c += 8) {
            const __m256 v = _mm256_loadu_ps(xr + c);
            const __m256 s2 = sin_sq_avx2(_mm256_mul_ps(v, _mm256_loadu_ps(a + c)));
            _mm256_storeu_ps(yr + c, _mm256_fmadd_ps(_mm256_loadu_ps(inv_b + c), s2, v));
        }
        for (; c < n_ch; ++c) {
            const float s = std::sin(a[c] * xr[c]);
            yr[c] = xr[c] + inv_b[c] * (s * s);
        }
    }
}

void snake_rows_generic(const float* x, int64_t ldx, int64_t r0, int64_t r1, int n_ch,
                        const float* a, const float* inv_b, float* y, int64_t ldy) {
    for (int64_t t = r0; t < r1; ++t)
        for (int c = 0; c < n_ch; ++c) {
            const float v = x[t * ldx + c];
            const float s = std::sin(a[c] * v);
            y[t * ldy + c] = v + inv_b[c] * (s * s);
        }
}

using SnakeRowsFn = void (*)(const float*, int64_t, int64_t, int64_t, int, const float*,
                             const float*, float*, int64_t);

SnakeRowsFn pick_snake() {
    switch (active_isa()) {
        case Isa::avx512:
            return snake_rows_avx512;
        case Isa::avx2:
            return snake_rows_avx2;
        case Isa::generic:
            break;
    }
    return snake_rows_generic;
}

}  // namespace

void snake_beta(const float* x, int64_t ldx, int64_t n_rows, int n_ch, const float* a,
                const float* inv_b, float* y, int64_t ldy, ThreadPool* pool) {
    if (n_rows <= 0) return;
    const SnakeRowsFn fn = pick_snake();
    if (pool && pool->size() > 1 && n_rows * n_ch >= 16384) {
        // Dynamic hand-out of ~16k-element row blocks (see conv1d_gemm).
        const int64_t block = std::max<int64_t>(1, 16384 / n_ch);
        std::atomic<int64_t> next{0};
        auto grab = [&] {
            for (int64_t r0; (r0 = next.fetch_add(block, std::memory_order_relaxed)) < n_rows;)
                fn(x, ldx, r0, std::min(n_rows, r0 + block), n_ch, a, inv_b, y, ldy);
        };
        const auto* g = &grab;  // one pointer of capture: no std::function allocation
        pool->parallel_for(pool->size(), 1, [g](int64_t, int64_t) { (*g)(); });
    } else {
        fn(x, ldx, 0, n_rows, n_ch, a, inv_b, y, ldy);
    }
}

void clamp(const float* x, int64_t n, float lo, float hi, float* y) {
    for (int64_t i = 0; i < n; ++i) y[i] = std::min(std::max(x[i], lo), hi);
}

}  // namespace qwen3tts::cpu
