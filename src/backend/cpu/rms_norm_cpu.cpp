#include "backend/cpu/rms_norm_cpu.hpp"

#include <cmath>

#include "backend/cpu/cpu_features.hpp"
#include "backend/cpu/simd_targets.hpp"

namespace qwen3tts::cpu {

namespace {

double combine(const double part[8]) {
    return ((part[0] + part[1]) + (part[2] + part[3])) +
           ((part[4] + part[5]) + (part[6] + part[7]));
}

// The tail (d mod 8 values) goes to sum 0, in order.
void add_tail(const float* x, int64_t j, int64_t d, double part[8]) {
    for (; j < d; ++j) part[0] += double(x[j]) * x[j];
}

float inverse_rms(double sum_sq, int64_t d, float eps) {
    return float(1.0 / std::sqrt(sum_sq / double(d) + double(eps)));
}

QWEN3TTS_AVX512 void rows_avx512(const float* x, const float* w, int64_t n, int64_t d, float eps,
                                 float* y) {
    for (int64_t i = 0; i < n; ++i) {
        const float* xi = x + i * d;
        __m512d acc = _mm512_setzero_pd();
        int64_t j = 0;
        for (; j + 8 <= d; j += 8) {
            const __m512d v = _mm512_cvtps_pd(_mm256_loadu_ps(xi + j));
            acc = _mm512_fmadd_pd(v, v, acc);  // the square is exact: fma == mul + add
        }
        alignas(64) double part[8];
        _mm512_store_pd(part, acc);
        add_tail(xi, j, d, part);
        const __m512 inv = _mm512_set1_ps(inverse_rms(combine(part), d, eps));
        float* yi = y + i * d;
        for (j = 0; j < d; j += 16) {
            const __mmask16 m = d - j >= 16 ? __mmask16(0xffff) : __mmask16((1u << (d - j)) - 1);
            _mm512_mask_storeu_ps(
                yi + j, m,
                _mm512_mul_ps(_mm512_maskz_loadu_ps(m, w + j),
                              _mm512_mul_ps(_mm512_maskz_loadu_ps(m, xi + j), inv)));
        }
    }
}

QWEN3TTS_AVX2 void rows_avx2(const float* x, const float* w, int64_t n, int64_t d, float eps,
                             float* y) {
    for (int64_t i = 0; i < n; ++i) {
        const float* xi = x + i * d;
        __m256d lo = _mm256_setzero_pd(), hi = _mm256_setzero_pd();
        int64_t j = 0;
        for (; j + 8 <= d; j += 8) {
            const __m256d a = _mm256_cvtps_pd(_mm_loadu_ps(xi + j));
            const __m256d b = _mm256_cvtps_pd(_mm_loadu_ps(xi + j + 4));
            lo = _mm256_fmadd_pd(a, a, lo);
            hi = _mm256_fmadd_pd(b, b, hi);
        }
        alignas(32) double part[8];
        _mm256_store_pd(part, lo);
        _mm256_store_pd(part + 4, hi);
        add_tail(xi, j, d, part);
        const float inv = inverse_rms(combine(part), d, eps);
        const __m256 inv8 = _mm256_set1_ps(inv);
        float* yi = y + i * d;
        for (j = 0; j + 8 <= d; j += 8)
            _mm256_storeu_ps(yi + j, _mm256_mul_ps(_mm256_loadu_ps(w + j),
                                                   _mm256_mul_ps(_mm256_loadu_ps(xi + j), inv8)));
        for (; j < d; ++j) yi[j] = w[j] * (xi[j] * inv);
    }
}

void rows_generic(const float* x, const float* w, int64_t n, int64_t d, float eps, float* y) {
    for (int64_t i = 0; i < n; ++i) {
        const float* xi = x + i * d;
        double part[8] = {};
        int64_t j = 0;
        for (; j + 8 <= d; j += 8)
            for (int l = 0; l < 8; ++l) part[l] += double(xi[j + l]) * xi[j + l];
        add_tail(xi, j, d, part);
        const float inv = inverse_rms(combine(part), d, eps);
        float* yi = y + i * d;
        for (j = 0; j < d; ++j) yi[j] = w[j] * (xi[j] * inv);
    }
}

}  // namespace

void rms_norm_rows(const float* x, const float* w, int64_t n, int64_t d, float eps, float* y) {
    switch (active_isa()) {
        case Isa::avx512:
            rows_avx512(x, w, n, d, eps, y);
            return;
        case Isa::avx2:
            rows_avx2(x, w, n, d, eps, y);
            return;
        case Isa::generic:
            break;
    }
    rows_generic(x, w, n, d, eps, y);
}

}  // namespace qwen3tts::cpu
