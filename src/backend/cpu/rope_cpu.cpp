#include "backend/cpu/rope_cpu.hpp"

#include "backend/cpu/cpu_features.hpp"
#include "backend/cpu/simd_targets.hpp"

namespace qwen3tts::cpu {

namespace {

// Pairs [j, half) of one head: the tail the vector loops leave, and the portable level.
void rotate_scalar(float* v, const float* c, const float* s, int64_t j, int64_t half) {
    for (; j < half; ++j) {
        const float a = v[j], b = v[j + half];
        v[j] = a * c[j] - b * s[j];
        v[j + half] = b * c[j] + a * s[j];
    }
}

// One head of `half` pairs (v[j], v[j + half]) with the angles' cos c and sin s.
QWEN3TTS_AVX512 void rotate_avx512(float* v, const float* c, const float* s, int64_t half) {
    int64_t j = 0;
    for (; j + 16 <= half; j += 16) {
        const __m512 a = _mm512_loadu_ps(v + j), b = _mm512_loadu_ps(v + j + half);
        const __m512 cj = _mm512_loadu_ps(c + j), sj = _mm512_loadu_ps(s + j);
        _mm512_storeu_ps(v + j, _mm512_sub_ps(_mm512_mul_ps(a, cj), _mm512_mul_ps(b, sj)));
        _mm512_storeu_ps(v + j + half, _mm512_add_ps(_mm512_mul_ps(b, cj), _mm512_mul_ps(a, sj)));
    }
    rotate_scalar(v, c, s, j, half);
}

QWEN3TTS_AVX2 void rotate_avx2(float* v, const float* c, const float* s, int64_t half) {
    int64_t j = 0;
    for (; j + 8 <= half; j += 8) {
        const __m256 a = _mm256_loadu_ps(v + j), b = _mm256_loadu_ps(v + j + half);
        const __m256 cj = _mm256_loadu_ps(c + j), sj = _mm256_loadu_ps(s + j);
        _mm256_storeu_ps(v + j, _mm256_sub_ps(_mm256_mul_ps(a, cj), _mm256_mul_ps(b, sj)));
        _mm256_storeu_ps(v + j + half, _mm256_add_ps(_mm256_mul_ps(b, cj), _mm256_mul_ps(a, sj)));
    }
    rotate_scalar(v, c, s, j, half);
}

void rotate_portable(float* v, const float* c, const float* s, int64_t half) {
    rotate_scalar(v, c, s, 0, half);
}

}  // namespace

void rope_rows(float* x, int64_t n, int64_t ldx, int64_t n_head, int64_t head_dim, const float* cos,
               const float* sin) {
    const Isa isa = active_isa();
    void (*rotate)(float*, const float*, const float*, int64_t) = isa == Isa::avx512 ? rotate_avx512
                                                                  : isa == Isa::avx2
                                                                      ? rotate_avx2
                                                                      : rotate_portable;
    const int64_t half = head_dim / 2;
    for (int64_t i = 0; i < n; ++i)
        for (int64_t h = 0; h < n_head; ++h)
            rotate(x + i * ldx + h * head_dim, cos + i * half, sin + i * half, half);
}

}  // namespace qwen3tts::cpu
