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

// Σ w·q of a block in q4_block_dot's order: lane j = fma(w[j+16], q[j+16], w[j]·q[j]), then
// lanes j + 8, + 4, + 2, + 1 added in.
QWEN3TTS_AVX512 inline float block_dot16(__m512 w0, __m512 w1, __m512 q0, __m512 q1) {
    const __m512 lanes = _mm512_fmadd_ps(w1, q1, _mm512_mul_ps(w0, q0));
    return hsum256(_mm256_add_ps(_mm512_castps512_ps256(lanes), _mm512_extractf32x8_ps(lanes, 1)));
}

// q4_candidate's inverse steps for every candidate at once (F16C rounds as f32_to_f16 does:
// tests/ops checks every value).
QWEN3TTS_AVX2 inline void q4_inverses(float extreme, float* inverse) {
    static_assert(kQ4Candidates == 4);
    const __m128 target = _mm_mul_ps(_mm_set1_ps(extreme), _mm_loadu_ps(kQ4Factor));
    const __m128 scale = _mm_cvtph_ps(_mm_cvtps_ph(target, _MM_FROUND_TO_NEAREST_INT));
    const __m128 inv = _mm_div_ps(_mm_set1_ps(1.0f), scale);
    _mm_storeu_ps(inverse, _mm_and_ps(inv, _mm_cmpneq_ps(scale, _mm_setzero_ps())));
}

QWEN3TTS_AVX2 inline uint16_t to_f16(float x) {
    return uint16_t(_cvtss_sh(x, _MM_FROUND_TO_NEAREST_INT));
}

QWEN3TTS_AVX512 inline __m512i codes16(__m512 v, float inverse, int min_q, int max_q) {
    const __m512i q = _mm512_cvtps_epi32(_mm512_mul_ps(v, _mm512_set1_ps(inverse)));
    return _mm512_min_epi32(_mm512_max_epi32(q, _mm512_set1_epi32(min_q)),
                            _mm512_set1_epi32(max_q));
}

QWEN3TTS_AVX512 inline void store_codes16(__m512i q, int offset, uint8_t* codes) {
    q = _mm512_add_epi32(q, _mm512_set1_epi32(offset));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(codes), _mm512_cvtepi32_epi8(q));
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
        uint8_t* block = codes + b * kQuantBlock;
        if (format == QuantFormat::q8) {
            // vcvtps2dq rounds to nearest even (the default MXCSR mode), as lrint does.
            const QuantStep step = quant_step(format, lo, hi);
            scales[b] = step.scale_f16;
            store_codes16(codes16(v0, step.inverse, step.min_q, step.max_q), step.offset, block);
            store_codes16(codes16(v1, step.inverse, step.min_q, step.max_q), step.offset,
                          block + 16);
            continue;
        }
        float inverse[kQ4Candidates];
        q4_inverses(hi >= -lo ? hi : lo, inverse);
        __m512i best0 = _mm512_setzero_si512(), best1 = best0;
        float best_gain = -1, best_wq = 0, best_qq = 0;
        for (int c = 0; c < kQ4Candidates; ++c) {
            const __m512i q0 = codes16(v0, inverse[c], -8, 7), q1 = codes16(v1, inverse[c], -8, 7);
            const __m512 f0 = _mm512_cvtepi32_ps(q0), f1 = _mm512_cvtepi32_ps(q1);
            const float wq = block_dot16(v0, v1, f0, f1);
            // Small integers: exact in any order.
            const float qq = _mm512_reduce_add_ps(_mm512_fmadd_ps(f1, f1, _mm512_mul_ps(f0, f0)));
            const float gain = q4_fit_gain(wq, qq);
            if (gain > best_gain) {
                best_gain = gain, best_wq = wq, best_qq = qq;
                best0 = q0, best1 = q1;
            }
        }
        scales[b] = to_f16(q4_fitted_scale(best_wq, best_qq));
        store_codes16(best0, 8, block);
        store_codes16(best1, 8, block + 16);
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

// block_dot16 on 4 × 8 lanes: lanes 0-7 from w[0..7] and w[16..23], lanes 8-15 from w[8..15]
// and w[24..31].
QWEN3TTS_AVX2 inline float block_dot8(const __m256* w, const __m256* q) {
    const __m256 lo = _mm256_fmadd_ps(w[2], q[2], _mm256_mul_ps(w[0], q[0]));
    const __m256 hi = _mm256_fmadd_ps(w[3], q[3], _mm256_mul_ps(w[1], q[1]));
    return hsum256(_mm256_add_ps(lo, hi));
}

QWEN3TTS_AVX2 inline void codes8(const __m256* v, float inverse, int min, int max, __m256i* q) {
    const __m256 inv = _mm256_set1_ps(inverse);
    const __m256i min_q = _mm256_set1_epi32(min), max_q = _mm256_set1_epi32(max);
    for (int i = 0; i < 4; ++i)
        q[i] = _mm256_min_epi32(
            _mm256_max_epi32(_mm256_cvtps_epi32(_mm256_mul_ps(v[i], inv)), min_q), max_q);
}

QWEN3TTS_AVX2 inline void store_codes32(const __m256i* q, int offset, uint8_t* codes) {
    const __m256i off = _mm256_set1_epi32(offset);
    __m256i c[4];
    for (int i = 0; i < 4; ++i) c[i] = _mm256_add_epi32(q[i], off);
    // Codes are in [0, 255]: pack 32-bit → 16-bit → 8-bit, then undo the per-lane interleave.
    const __m256i bytes =
        _mm256_packus_epi16(_mm256_packus_epi32(c[0], c[1]), _mm256_packus_epi32(c[2], c[3]));
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(codes),
                        _mm256_permutevar8x32_epi32(bytes, order));
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
        uint8_t* block = codes + b * kQuantBlock;
        __m256i q[4];
        if (format == QuantFormat::q8) {
            const QuantStep step = quant_step(format, lo, hi);
            scales[b] = step.scale_f16;
            codes8(v, step.inverse, step.min_q, step.max_q, q);
            store_codes32(q, step.offset, block);
            continue;
        }
        float inverse[kQ4Candidates];
        q4_inverses(hi >= -lo ? hi : lo, inverse);
        __m256i best[4];
        float best_gain = -1, best_wq = 0, best_qq = 0;
        for (int c = 0; c < kQ4Candidates; ++c) {
            codes8(v, inverse[c], -8, 7, q);
            __m256 f[4];
            for (int i = 0; i < 4; ++i) f[i] = _mm256_cvtepi32_ps(q[i]);
            const float wq = block_dot8(v, f);
            // Small integers: exact in any order.
            __m256 sq = _mm256_mul_ps(f[0], f[0]);
            for (int i = 1; i < 4; ++i) sq = _mm256_fmadd_ps(f[i], f[i], sq);
            const float qq = hsum256(sq);
            const float gain = q4_fit_gain(wq, qq);
            if (gain > best_gain) {
                best_gain = gain, best_wq = wq, best_qq = qq;
                for (int i = 0; i < 4; ++i) best[i] = q[i];
            }
        }
        scales[b] = to_f16(q4_fitted_scale(best_wq, best_qq));
        store_codes32(best, 8, block);
    }
}

QWEN3TTS_AVX2 void pack_q4_avx2(const uint8_t* unpacked, int64_t blocks, uint8_t* packed) {
    // Codes are below 16, so a 16-bit shift by 4 moves each byte's code into its high nibble
    // without spilling into the next byte.
    int64_t b = 0;
    for (; b + 1 < blocks; b += 2) {
        const __m256i lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(unpacked + b * 32));
        const __m256i hi =
            _mm256_loadu_si256(reinterpret_cast<const __m256i*>(unpacked + b * 32 + 32));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(packed + b * 16),
                            _mm256_or_si256(lo, _mm256_slli_epi16(hi, 4)));
    }
    if (b < blocks) {  // an odd last block: 16 bytes, weights j and 16 + j
        const __m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i*>(unpacked + b * 32));
        const __m128i hi =
            _mm_loadu_si128(reinterpret_cast<const __m128i*>(unpacked + b * 32 + 16));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(packed + b * 16),
                         _mm_or_si128(lo, _mm_slli_epi16(hi, 4)));
    }
}

}  // namespace

void pack_q4_cpu(const uint8_t* unpacked, int64_t blocks, uint8_t* packed) {
    pack_q4_avx2(unpacked, blocks, packed);
}

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
