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

QWEN3TTS_AVX2 inline __m256 load8(const void* row, DType t, int64_t k) {
    if (t == DType::f32) return _mm256_loadu_ps(static_cast<const float*>(row) + k);
    const __m128i h =
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(static_cast<const uint16_t*>(row) + k));
    if (t == DType::f16) return _mm256_cvtph_ps(h);
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
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

// reduce16 for 8 vectors of 8 lanes (lane j combined with j + 4, then j + 2 and j + 1): lane i
// of the result is r[i] reduced.
template <typename Op>
QWEN3TTS_AVX2 inline __m256 reduce8(const __m256* r, Op op) {
    __m256 a[4], b[2];
    for (int k = 0; k < 4; ++k)  // 128-bit lane t: r[2k+t]'s j and j + 4
        a[k] = op(_mm256_permute2f128_ps(r[2 * k], r[2 * k + 1], 0x20),
                  _mm256_permute2f128_ps(r[2 * k], r[2 * k + 1], 0x31));
    for (int k = 0; k < 2; ++k)  // lane t, elements 0-1: r[4k+t]'s j and j + 2, 2-3: r[4k+2+t]'s
        b[k] = op(_mm256_shuffle_ps(a[2 * k], a[2 * k + 1], _MM_SHUFFLE(1, 0, 1, 0)),
                  _mm256_shuffle_ps(a[2 * k], a[2 * k + 1], _MM_SHUFFLE(3, 2, 3, 2)));
    // Lane 4t + u: r[2u + t].
    const __m256 c = op(_mm256_shuffle_ps(b[0], b[1], _MM_SHUFFLE(2, 0, 2, 0)),
                        _mm256_shuffle_ps(b[0], b[1], _MM_SHUFFLE(3, 1, 3, 1)));
    return _mm256_permutevar8x32_ps(c, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}

QWEN3TTS_AVX2 inline __m256 add8(__m256 a, __m256 b) {
    return _mm256_add_ps(a, b);
}
QWEN3TTS_AVX2 inline __m256 min8(__m256 a, __m256 b) {
    return _mm256_min_ps(a, b);
}
QWEN3TTS_AVX2 inline __m256 max8(__m256 a, __m256 b) {
    return _mm256_max_ps(a, b);
}

// inverse_of_f16 on 8 lanes.
QWEN3TTS_AVX2 inline __m256 inverse_of_f16_8(__m256 target, __m128i* scale_f16) {
    *scale_f16 = _mm256_cvtps_ph(target, _MM_FROUND_TO_NEAREST_INT);
    const __m256 scale = _mm256_cvtph_ps(*scale_f16);
    return _mm256_and_ps(_mm256_div_ps(_mm256_set1_ps(1.0f), scale),
                         _mm256_cmp_ps(scale, _mm256_setzero_ps(), _CMP_NEQ_UQ));
}

// a / b where mask, 0 elsewhere (0 / 0 there is dropped).
QWEN3TTS_AVX2 inline __m256 div_where(__m256 mask, __m256 a, __m256 b) {
    return _mm256_and_ps(_mm256_div_ps(a, b), mask);
}

QWEN3TTS_AVX2 inline void store_scales8(__m128i f16, int n, uint16_t* scales) {
    alignas(16) uint16_t s[8];
    _mm_store_si128(reinterpret_cast<__m128i*>(s), f16);
    std::copy(s, s + n, scales);
}

// group_avx512 with 8 blocks per group, a block in 4 vectors: weights 0-7, 8-15, 16-23, 24-31.
QWEN3TTS_AVX2 void group_avx2(const TensorView& w, int64_t r, const void* row, int64_t b0, int n,
                              QuantFormat format, uint8_t* codes, uint16_t* scales) {
    constexpr int kGroup8 = 8;
    alignas(32) float x[kGroup8][kQuantBlock];
    __m256 lo8[kGroup8], hi8[kGroup8];
    __m256 probe = _mm256_setzero_ps();
    for (int i = 0; i < kGroup8; ++i) {
        __m256 v[4];
        for (int k = 0; k < 4; ++k) {
            v[k] =
                i < n ? load8(row, w.dtype, (b0 + i) * kQuantBlock + 8 * k) : _mm256_setzero_ps();
            probe = _mm256_add_ps(probe, _mm256_sub_ps(v[k], v[k]));
            _mm256_store_ps(x[i] + 8 * k, v[k]);
        }
        lo8[i] = _mm256_min_ps(_mm256_min_ps(v[0], v[1]), _mm256_min_ps(v[2], v[3]));
        hi8[i] = _mm256_max_ps(_mm256_max_ps(v[0], v[1]), _mm256_max_ps(v[2], v[3]));
    }
    if (_mm256_movemask_ps(_mm256_cmp_ps(probe, probe, _CMP_UNORD_Q))) throw_non_finite(w, r);
    const __m256 lo = reduce8(lo8, min8), hi = reduce8(hi8, max8);
    const __m256 extreme = _mm256_blendv_ps(
        lo, hi, _mm256_cmp_ps(hi, _mm256_sub_ps(_mm256_setzero_ps(), lo), _CMP_GE_OQ));
    alignas(32) float inverse[kGroup8];
    int min_q = -127, max_q = 127, offset = 128;
    const __m256 zero = _mm256_setzero_ps();
    if (format == QuantFormat::q8) {
        __m128i scale_f16;
        const __m256 magnitude = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), extreme);
        _mm256_store_ps(inverse, inverse_of_f16_8(_mm256_div_ps(magnitude, _mm256_set1_ps(127.0f)),
                                                  &scale_f16));
        store_scales8(scale_f16, n, scales + b0);
    } else {
        min_q = -8, max_q = 7, offset = 8;
        __m256 best_gain = _mm256_set1_ps(-1.0f), best_wq = zero, best_qq = best_gain,
               best_inverse = best_gain;
        for (int c = 0; c < kQ4Candidates; ++c) {
            __m128i unused;
            alignas(32) float inv[kGroup8];
            const __m256 inv8 =
                inverse_of_f16_8(_mm256_mul_ps(extreme, _mm256_set1_ps(kQ4Factor[c])), &unused);
            _mm256_store_ps(inv, inv8);
            __m256 wq8[kGroup8], qq8[kGroup8];
            for (int i = 0; i < kGroup8; ++i) {
                __m256 v[4], f[4];
                __m256i q[4];
                for (int k = 0; k < 4; ++k) v[k] = _mm256_load_ps(x[i] + 8 * k);
                codes8(v, inv[i], -8, 7, q);
                for (int k = 0; k < 4; ++k) f[k] = _mm256_cvtepi32_ps(q[k]);
                // q4_block_dot's lanes 0-7 and 8-15, then its first step (j with j + 8).
                const __m256 lanes_lo = _mm256_fmadd_ps(v[2], f[2], _mm256_mul_ps(v[0], f[0]));
                const __m256 lanes_hi = _mm256_fmadd_ps(v[3], f[3], _mm256_mul_ps(v[1], f[1]));
                wq8[i] = _mm256_add_ps(lanes_lo, lanes_hi);
                __m256 sq = _mm256_mul_ps(f[0], f[0]);  // exact in any order
                for (int k = 1; k < 4; ++k) sq = _mm256_fmadd_ps(f[k], f[k], sq);
                qq8[i] = sq;
            }
            const __m256 wq = reduce8(wq8, add8), qq = reduce8(qq8, add8);
            const __m256 gain =
                div_where(_mm256_cmp_ps(qq, zero, _CMP_GT_OQ), _mm256_mul_ps(wq, wq), qq);
            const __m256 better = _mm256_cmp_ps(gain, best_gain, _CMP_GT_OQ);
            best_gain = _mm256_blendv_ps(best_gain, gain, better);
            best_wq = _mm256_blendv_ps(best_wq, wq, better);
            best_qq = _mm256_blendv_ps(best_qq, qq, better);
            best_inverse = _mm256_blendv_ps(best_inverse, inv8, better);
        }
        _mm256_store_ps(inverse, best_inverse);
        const __m256 scale = div_where(_mm256_cmp_ps(best_qq, zero, _CMP_GT_OQ), best_wq, best_qq);
        store_scales8(_mm256_cvtps_ph(scale, _MM_FROUND_TO_NEAREST_INT), n, scales + b0);
    }
    for (int i = 0; i < n; ++i) {
        __m256 v[4];
        __m256i q[4];
        for (int k = 0; k < 4; ++k) v[k] = _mm256_load_ps(x[i] + 8 * k);
        codes8(v, inverse[i], min_q, max_q, q);
        store_codes32(q, offset, codes + (b0 + i) * kQuantBlock);
    }
}

QWEN3TTS_AVX2 void row_avx2(const TensorView& w, int64_t r, QuantFormat format, uint8_t* codes,
                            uint16_t* scales) {
    const int64_t cols = w.dim(1), blocks = cols / kQuantBlock;
    const void* row = static_cast<const uint8_t*>(w.data) + size_t(r * cols) * dtype_size(w.dtype);
    for (int64_t b = 0; b < blocks; b += 8)
        group_avx2(w, r, row, b, int(std::min<int64_t>(8, blocks - b)), format, codes, scales);
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
