#include "backend/cpu/quantize_cpu.hpp"

#include "backend/cpu/cpu_features.hpp"
#include "backend/cpu/simd_targets.hpp"

namespace qwen3tts::backend {

namespace {

// 16 weights from element k of a row, widened to f32.
QWEN3TTS_AVX512 inline __m512 load16(const void* row, DType t, int64_t k) {
    if (t == DType::f32) return _mm512_loadu_ps(static_cast<const float*>(row) + k);
    const __m256i h =
        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(static_cast<const uint16_t*>(row) + k));
    if (t == DType::f16) return _mm512_cvtph_ps(h);
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
}

QWEN3TTS_AVX512 void row_avx512(const TensorView& w, int64_t r, QuantFormat format, uint8_t* codes,
                                uint16_t* scales) {
    const int64_t cols = w.dim(1);
    const void* row = static_cast<const uint8_t*>(w.data) + size_t(r * cols) * dtype_size(w.dtype);
    for (int64_t b = 0; b < cols / kQuantBlock; ++b) {
        const __m512 v0 = load16(row, w.dtype, b * kQuantBlock);
        const __m512 v1 = load16(row, w.dtype, b * kQuantBlock + 16);
        // Non-finite weights: x − x is NaN for ±inf and NaN, 0 otherwise.
        const __m512 nan_probe = _mm512_add_ps(_mm512_sub_ps(v0, v0), _mm512_sub_ps(v1, v1));
        if (_mm512_cmp_ps_mask(nan_probe, nan_probe, _CMP_UNORD_Q)) throw_non_finite(w, r);
        const float lo = _mm512_reduce_min_ps(_mm512_min_ps(v0, v1));
        const float hi = _mm512_reduce_max_ps(_mm512_max_ps(v0, v1));
        const QuantStep step = quant_step(format, lo, hi);
        scales[b] = step.scale_f16;
        const __m512 inv = _mm512_set1_ps(step.inverse);
        const __m512i min_q = _mm512_set1_epi32(step.min_q), max_q = _mm512_set1_epi32(step.max_q);
        const __m512i offset = _mm512_set1_epi32(step.offset);
        for (int h = 0; h < 2; ++h) {
            // vcvtps2dq rounds to nearest even (the default MXCSR mode), as lrint does.
            __m512i q = _mm512_cvtps_epi32(_mm512_mul_ps(h ? v1 : v0, inv));
            q = _mm512_add_epi32(_mm512_min_epi32(_mm512_max_epi32(q, min_q), max_q), offset);
            _mm_storeu_si128(reinterpret_cast<__m128i*>(codes + b * kQuantBlock + 16 * h),
                             _mm512_cvtepi32_epi8(q));
        }
    }
}

QWEN3TTS_AVX2 inline __m256 load8(const void* row, DType t, int64_t k) {
    if (t == DType::f32) return _mm256_loadu_ps(static_cast<const float*>(row) + k);
    const __m128i h =
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(static_cast<const uint16_t*>(row) + k));
    if (t == DType::f16) return _mm256_cvtph_ps(h);
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
}

QWEN3TTS_AVX2 inline float hmin8(__m256 v) {
    __m128 m = _mm_min_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    m = _mm_min_ps(m, _mm_movehl_ps(m, m));
    return _mm_cvtss_f32(_mm_min_ss(m, _mm_movehdup_ps(m)));
}

QWEN3TTS_AVX2 inline float hmax8(__m256 v) {
    __m128 m = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    m = _mm_max_ps(m, _mm_movehl_ps(m, m));
    return _mm_cvtss_f32(_mm_max_ss(m, _mm_movehdup_ps(m)));
}

QWEN3TTS_AVX2 void row_avx2(const TensorView& w, int64_t r, QuantFormat format, uint8_t* codes,
                            uint16_t* scales) {
    const int64_t cols = w.dim(1);
    const void* row = static_cast<const uint8_t*>(w.data) + size_t(r * cols) * dtype_size(w.dtype);
    for (int64_t b = 0; b < cols / kQuantBlock; ++b) {
        __m256 v[4];
        for (int i = 0; i < 4; ++i) v[i] = load8(row, w.dtype, b * kQuantBlock + 8 * i);
        __m256 probe = _mm256_setzero_ps();
        for (int i = 0; i < 4; ++i) probe = _mm256_add_ps(probe, _mm256_sub_ps(v[i], v[i]));
        if (_mm256_movemask_ps(_mm256_cmp_ps(probe, probe, _CMP_UNORD_Q))) throw_non_finite(w, r);
        const float lo = hmin8(_mm256_min_ps(_mm256_min_ps(v[0], v[1]), _mm256_min_ps(v[2], v[3])));
        const float hi = hmax8(_mm256_max_ps(_mm256_max_ps(v[0], v[1]), _mm256_max_ps(v[2], v[3])));
        const QuantStep step = quant_step(format, lo, hi);
        scales[b] = step.scale_f16;
        const __m256 inv = _mm256_set1_ps(step.inverse);
        const __m256i min_q = _mm256_set1_epi32(step.min_q), max_q = _mm256_set1_epi32(step.max_q);
        const __m256i offset = _mm256_set1_epi32(step.offset);
        __m256i q[4];
        for (int i = 0; i < 4; ++i) {
            q[i] = _mm256_cvtps_epi32(_mm256_mul_ps(v[i], inv));
            q[i] = _mm256_add_epi32(_mm256_min_epi32(_mm256_max_epi32(q[i], min_q), max_q), offset);
        }
        // Codes are in [0, 255]: pack 32-bit → 16-bit → 8-bit, then undo the per-lane interleave.
        const __m256i bytes =
            _mm256_packus_epi16(_mm256_packus_epi32(q[0], q[1]), _mm256_packus_epi32(q[2], q[3]));
        const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(codes + b * kQuantBlock),
                            _mm256_permutevar8x32_epi32(bytes, order));
    }
}

}  // namespace

bool quantize_row_cpu_available() {
    return cpu::active_isa() != cpu::Isa::generic;
}

void quantize_row_cpu(const TensorView& w, int64_t r, QuantFormat format, uint8_t* codes,
                      uint16_t* scales) {
    if (cpu::active_isa() == cpu::Isa::avx512)
        row_avx512(w, r, format, codes, scales);
    else
        row_avx2(w, r, format, codes, scales);
}

}  // namespace qwen3tts::backend
