#include "backend/cpu/quantize_cpu.hpp"

#include <algorithm>

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

// Blocks quantized together by the AVX-512 row quantizer: one per lane of the vectors that
// hold a block's extremes, steps, Σ w·q and Σ q², so that no reduction runs one block at a time
// and choosing a q4 candidate is a lane-wise blend rather than a branch per block.
constexpr int kGroup = 16;

// Lane i (< 16) of the result: the 16 lanes of r[i] reduced by op, lane j combined with lane
// j + 8, then j + 4, j + 2 and j + 1: q4_block_dot's order. Each level combines two vectors'
// halves in one op, so the 16 reductions share their shuffles.
template <typename Op>
QWEN3TTS_AVX512 inline __m512 reduce16(const __m512* r, Op op) {
    __m512 a[8], b[4], c[2];
    for (int k = 0; k < 8; ++k)  // lanes 0-7: r[2k]'s j and j + 8, lanes 8-15: r[2k+1]'s
        a[k] = op(_mm512_shuffle_f32x4(r[2 * k], r[2 * k + 1], _MM_SHUFFLE(1, 0, 1, 0)),
                  _mm512_shuffle_f32x4(r[2 * k], r[2 * k + 1], _MM_SHUFFLE(3, 2, 3, 2)));
    for (int k = 0; k < 4; ++k)  // 128-bit lane t: r[4k+t]'s j and j + 4
        b[k] = op(_mm512_shuffle_f32x4(a[2 * k], a[2 * k + 1], _MM_SHUFFLE(2, 0, 2, 0)),
                  _mm512_shuffle_f32x4(a[2 * k], a[2 * k + 1], _MM_SHUFFLE(3, 1, 3, 1)));
    for (int k = 0; k < 2; ++k)  // lane t, elements 0-1: r[8k+t]'s j and j + 2, 2-3: r[8k+4+t]'s
        c[k] = op(_mm512_shuffle_ps(b[2 * k], b[2 * k + 1], _MM_SHUFFLE(1, 0, 1, 0)),
                  _mm512_shuffle_ps(b[2 * k], b[2 * k + 1], _MM_SHUFFLE(3, 2, 3, 2)));
    // Lane 4t + u: r[4u + t]; the permutation (a 4 × 4 transpose) puts r[i] in lane i.
    const __m512 d = op(_mm512_shuffle_ps(c[0], c[1], _MM_SHUFFLE(2, 0, 2, 0)),
                        _mm512_shuffle_ps(c[0], c[1], _MM_SHUFFLE(3, 1, 3, 1)));
    const __m512i transpose =
        _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    return _mm512_permutexvar_ps(transpose, d);
}

QWEN3TTS_AVX512 inline __m512 add16(__m512 a, __m512 b) {
    return _mm512_add_ps(a, b);
}
QWEN3TTS_AVX512 inline __m512 min16(__m512 a, __m512 b) {
    return _mm512_min_ps(a, b);
}
QWEN3TTS_AVX512 inline __m512 max16(__m512 a, __m512 b) {
    return _mm512_max_ps(a, b);
}

// 1 / the f16 rounding of target, lane-wise (0 where that is 0): quant_step's inverse.
QWEN3TTS_AVX512 inline __m512 inverse_of_f16(__m512 target, __m256i* scale_f16) {
    *scale_f16 = _mm512_cvtps_ph(target, _MM_FROUND_TO_NEAREST_INT);
    const __m512 scale = _mm512_cvtph_ps(*scale_f16);
    return _mm512_maskz_div_ps(_mm512_cmp_ps_mask(scale, _mm512_setzero_ps(), _CMP_NEQ_UQ),
                               _mm512_set1_ps(1.0f), scale);
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

// The first n of 16 f16 scales (a masked store only for a partial group: it is the slower one).
QWEN3TTS_AVX512 inline void store_scales(__m256i f16, int n, uint16_t* scales) {
    if (n == kGroup)
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(scales), f16);
    else
        _mm256_mask_storeu_epi16(scales, __mmask16((1u << n) - 1), f16);
}

// Blocks [b0, b0 + n) of a row (n ≤ kGroup), the lanes past n quantizing zeros.
QWEN3TTS_AVX512 void group_avx512(const TensorView& w, int64_t r, const void* row, int64_t b0,
                                  int n, QuantFormat format, uint8_t* codes, uint16_t* scales) {
    alignas(64) float x[kGroup][kQuantBlock];
    __m512 lo16[kGroup], hi16[kGroup];
    __m512 probe = _mm512_setzero_ps();
    for (int i = 0; i < kGroup; ++i) {
        __m512 v0 = _mm512_setzero_ps(), v1 = v0;
        if (i < n) {
            v0 = load16(row, w.dtype, (b0 + i) * kQuantBlock);
            v1 = load16(row, w.dtype, (b0 + i) * kQuantBlock + 16);
        }
        // Non-finite weights: x − x is NaN for ±inf and NaN, 0 otherwise.
        probe = _mm512_add_ps(probe, _mm512_add_ps(_mm512_sub_ps(v0, v0), _mm512_sub_ps(v1, v1)));
        _mm512_store_ps(x[i], v0);
        _mm512_store_ps(x[i] + 16, v1);
        lo16[i] = _mm512_min_ps(v0, v1);
        hi16[i] = _mm512_max_ps(v0, v1);
    }
    if (_mm512_cmp_ps_mask(probe, probe, _CMP_UNORD_Q)) throw_non_finite(w, r);
    const __m512 lo = reduce16(lo16, min16), hi = reduce16(hi16, max16);
    // The value of largest magnitude, the positive one on a tie.
    const __m512 extreme = _mm512_mask_blend_ps(
        _mm512_cmp_ps_mask(hi, _mm512_sub_ps(_mm512_setzero_ps(), lo), _CMP_GE_OQ), lo, hi);
    alignas(64) float inverse[kGroup];
    int min_q = -127, max_q = 127, offset = 128;
    if (format == QuantFormat::q8) {
        __m256i scale_f16;
        const __m512 magnitude = _mm512_abs_ps(extreme);
        _mm512_store_ps(
            inverse, inverse_of_f16(_mm512_div_ps(magnitude, _mm512_set1_ps(127.0f)), &scale_f16));
        store_scales(scale_f16, n, scales + b0);
    } else {
        min_q = -8, max_q = 7, offset = 8;
        // Each candidate's codes fit the block with Σ w·q / Σ q²; the first largest gain wins.
        __m512 best_gain = _mm512_set1_ps(-1.0f), best_wq = _mm512_setzero_ps(),
               best_qq = best_gain, best_inverse = best_gain;
        for (int c = 0; c < kQ4Candidates; ++c) {
            __m256i unused;
            alignas(64) float inv[kGroup];
            const __m512 inv16 =
                inverse_of_f16(_mm512_mul_ps(extreme, _mm512_set1_ps(kQ4Factor[c])), &unused);
            _mm512_store_ps(inv, inv16);
            __m512 wq16[kGroup], qq16[kGroup];
            for (int i = 0; i < kGroup; ++i) {
                const __m512 v0 = _mm512_load_ps(x[i]), v1 = _mm512_load_ps(x[i] + 16);
                const __m512 f0 = _mm512_cvtepi32_ps(codes16(v0, inv[i], -8, 7));
                const __m512 f1 = _mm512_cvtepi32_ps(codes16(v1, inv[i], -8, 7));
                wq16[i] = _mm512_fmadd_ps(v1, f1, _mm512_mul_ps(v0, f0));
                qq16[i] = _mm512_fmadd_ps(f1, f1, _mm512_mul_ps(f0, f0));  // exact in any order
            }
            const __m512 wq = reduce16(wq16, add16), qq = reduce16(qq16, add16);
            const __mmask16 fits = _mm512_cmp_ps_mask(qq, _mm512_setzero_ps(), _CMP_GT_OQ);
            const __m512 gain = _mm512_maskz_div_ps(fits, _mm512_mul_ps(wq, wq), qq);
            const __mmask16 better = _mm512_cmp_ps_mask(gain, best_gain, _CMP_GT_OQ);
            best_gain = _mm512_mask_blend_ps(better, best_gain, gain);
            best_wq = _mm512_mask_blend_ps(better, best_wq, wq);
            best_qq = _mm512_mask_blend_ps(better, best_qq, qq);
            best_inverse = _mm512_mask_blend_ps(better, best_inverse, inv16);
        }
        _mm512_store_ps(inverse, best_inverse);
        const __mmask16 fits = _mm512_cmp_ps_mask(best_qq, _mm512_setzero_ps(), _CMP_GT_OQ);
        const __m512 scale = _mm512_maskz_div_ps(fits, best_wq, best_qq);
        store_scales(_mm512_cvtps_ph(scale, _MM_FROUND_TO_NEAREST_INT), n, scales + b0);
    }
    // vcvtps2dq rounds to nearest even (the default MXCSR mode), as lrint does.
    for (int i = 0; i < n; ++i) {
        uint8_t* block = codes + (b0 + i) * kQuantBlock;
        const __m512 v0 = _mm512_load_ps(x[i]), v1 = _mm512_load_ps(x[i] + 16);
        store_codes16(codes16(v0, inverse[i], min_q, max_q), offset, block);
        store_codes16(codes16(v1, inverse[i], min_q, max_q), offset, block + 16);
    }
}

QWEN3TTS_AVX512 void row_avx512(const TensorView& w, int64_t r, QuantFormat format, uint8_t* codes,
                                uint16_t* scales) {
    const int64_t cols = w.dim(1), blocks = cols / kQuantBlock;
    const void* row = static_cast<const uint8_t*>(w.data) + size_t(r * cols) * dtype_size(w.dtype);
    for (int64_t b = 0; b < blocks; b += kGroup)
        group_avx512(w, r, row, b, int(std::min<int64_t>(kGroup, blocks - b)), format, codes,
                     scales);
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

// q4_block_dot on 4 × 8 lanes: lanes 0-7 from w[0..7] and w[16..23], lanes 8-15 from w[8..15]
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
