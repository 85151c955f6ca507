#include "backend/cpu/linear_quant_cpu.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "backend/cpu/cpu_features.hpp"
#include "backend/cpu/simd_targets.hpp"
#include "backend/reference/linear_quant_ref.hpp"
#include "core/error.hpp"

namespace qwen3tts::backend {

namespace {

enum class Kernel { generic, avx2, avx512_vnni };

Kernel active_kernel() {
    switch (cpu::active_isa()) {
        case cpu::Isa::avx512:
            return cpu::has_avx512_vnni() ? Kernel::avx512_vnni : Kernel::avx2;
        case cpu::Isa::avx2:
            return Kernel::avx2;
        default:
            return Kernel::generic;
    }
}

// One weight row against one activation row: everything the kernels need of both.
struct RowPair {
    const uint8_t* codes;    // the weight row's codes
    const uint16_t* wscale;  // its f16 block scales
    const int8_t* xq;        // the activation row
    const float* xscale;     // its block scales
    const float* xsum;       // its scale × Σq per block
    int64_t blocks;
};

// ---- AVX-512 VNNI ----------------------------------------------------------------------------

// The 64 codes of block pair p as bytes in weight order.
template <QuantFormat F>
QWEN3TTS_AVX512_VNNI inline __m512i codes64(const uint8_t* codes, int64_t p) {
    if constexpr (F == QuantFormat::q8) {
        return _mm512_loadu_si512(codes + p * 64);
    } else {
        const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(codes + p * 32));
        const __m256i nibble = _mm256_set1_epi8(0x0f);
        const __m256i lo = _mm256_and_si256(v, nibble);
        const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), nibble);
        return _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
    }
}

// The 32 codes of an odd last block (codes points at the block) as bytes in weight order.
template <QuantFormat F>
QWEN3TTS_AVX512_VNNI inline __m256i codes32(const uint8_t* codes) {
    if constexpr (F == QuantFormat::q8) {
        return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(codes));
    } else {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(codes));
        const __m128i nibble = _mm_set1_epi8(0x0f);
        return _mm256_set_m128i(_mm_and_si128(_mm_srli_epi16(v, 4), nibble),
                                _mm_and_si128(v, nibble));
    }
}

// The activation rows of one register tile.
struct ActRows {
    const int8_t* xq[4];
    const float* xscale[4];
    const float* xsum[4];
};

// q4 blocks g .. g+3 of the 16 from b (scale: their weight × activation scales per row) into
// acc (blocks g, g+2) and acc_hi (g+1, g+3) for NX activation rows. One 64-byte load of codes
// holds the 4 blocks, its low nibbles blocks g and g+2, its high nibbles g+1 and g+3, against
// activations stored in that order (q4_block_order): no shuffle to unpack.
template <int NX>
QWEN3TTS_AVX512_VNNI inline void group_q4(const uint8_t* codes, int64_t b, int g, const ActRows& x,
                                          const __m512* scale, __m512* acc, __m512* acc_hi) {
    const __m512i nibble = _mm512_set1_epi8(0x0f);
    const __m512i v = _mm512_loadu_si512(codes + (b + g) * 16);
    const __m512i lo = _mm512_and_si512(v, nibble);
    const __m512i hi = _mm512_and_si512(_mm512_srli_epi16(v, 4), nibble);
    const __m512i lanes_lo = _mm512_set_epi32(g + 2, g + 2, g + 2, g + 2, g + 2, g + 2, g + 2,
                                              g + 2, g, g, g, g, g, g, g, g);
    const __m512i lanes_hi = _mm512_add_epi32(lanes_lo, _mm512_set1_epi32(1));
#pragma GCC unroll 4
    for (int r = 0; r < NX; ++r) {
        const int8_t* q = x.xq[r] + (b + g) * kQuantBlock;
        const __m512i d_lo = _mm512_dpbusd_epi32(_mm512_setzero_si512(), lo, _mm512_loadu_si512(q));
        const __m512i d_hi =
            _mm512_dpbusd_epi32(_mm512_setzero_si512(), hi, _mm512_loadu_si512(q + 64));
        acc[r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(d_lo),
                                 _mm512_permutexvar_ps(lanes_lo, scale[r]), acc[r]);
        acc_hi[r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(d_hi),
                                    _mm512_permutexvar_ps(lanes_hi, scale[r]), acc_hi[r]);
    }
}

// Σ_b ws_b · xs_b · Σ_j code_j · q_j  −  offset · Σ_b ws_b · xsum_b, 16 blocks per scale load,
// for NX activation rows at once: the weight codes are loaded and unpacked once for all of
// them, and each row's sums run in the same order as for NX = 1 (batch invariance).
template <QuantFormat F, int NX>
QWEN3TTS_AVX512_VNNI void dot_vnni(const uint8_t* codes, const uint16_t* wscale, int64_t blocks,
                                   const ActRows& x, int offset, float* out) {
    // Lanes 0-7 of a vpdpbusd result sum the pair's first block, lanes 8-15 its second.
    const __m512i pair_lanes = _mm512_set_epi32(1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0);
    // q4 groups' high nibbles sum into acc_hi: two FMA chains per row, not one.
    __m512 acc[NX], acc_hi[NX], corr[NX], scale[NX];
#pragma GCC unroll 4
    for (int r = 0; r < NX; ++r) acc[r] = acc_hi[r] = corr[r] = _mm512_setzero_ps();
    for (int64_t b = 0; b < blocks; b += 16) {
        const int64_t nb = std::min<int64_t>(16, blocks - b);
        const __mmask16 m = __mmask16((1u << nb) - 1u);
        const __m512 ws = _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(m, wscale + b));
#pragma GCC unroll 4
        for (int r = 0; r < NX; ++r) {
            corr[r] = _mm512_fmadd_ps(ws, _mm512_maskz_loadu_ps(m, x.xsum[r] + b), corr[r]);
            scale[r] = _mm512_mul_ps(ws, _mm512_maskz_loadu_ps(m, x.xscale[r] + b));
        }
        int64_t p = 0;
        if constexpr (F == QuantFormat::q4) {
            if (nb == 16) {  // a constant trip count: unrolled, the lanes folded to constants
#pragma GCC unroll 4
                for (int g = 0; g < 4; ++g) group_q4<NX>(codes, b, 4 * g, x, scale, acc, acc_hi);
                p = 8;
            } else {
                for (; 2 * p + 4 <= nb; p += 2)
                    group_q4<NX>(codes, b, 2 * p, x, scale, acc, acc_hi);
            }
        }
        for (; p < nb / 2; ++p) {
            const __m512i u = codes64<F>(codes, b / 2 + p);
            const __m512i lanes = _mm512_add_epi32(pair_lanes, _mm512_set1_epi32(int(2 * p)));
#pragma GCC unroll 4
            for (int r = 0; r < NX; ++r) {
                const __m512i q = _mm512_loadu_si512(x.xq[r] + (b + 2 * p) * kQuantBlock);
                const __m512i d = _mm512_dpbusd_epi32(_mm512_setzero_si512(), u, q);
                acc[r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(d),
                                         _mm512_permutexvar_ps(lanes, scale[r]), acc[r]);
            }
        }
        if (nb % 2) {  // an odd last block (rows of 32 · odd columns)
            const int64_t last = b + nb - 1;
            const __m256i u = codes32<F>(codes + last * (F == QuantFormat::q8 ? 32 : 16));
            const float w = _cvtsh_ss(wscale[last]);
#pragma GCC unroll 4
            for (int r = 0; r < NX; ++r) {
                const __m256i q = _mm256_loadu_si256(
                    reinterpret_cast<const __m256i*>(x.xq[r] + last * kQuantBlock));
                const __m256i d = _mm256_dpbusd_epi32(_mm256_setzero_si256(), u, q);
                const __m256 s8 = _mm256_set1_ps(w * x.xscale[r][last]);
                acc[r] = _mm512_add_ps(
                    acc[r], _mm512_castps256_ps512(_mm256_mul_ps(_mm256_cvtepi32_ps(d), s8)));
            }
        }
    }
#pragma GCC unroll 4
    for (int r = 0; r < NX; ++r)
        out[r] = _mm512_reduce_add_ps(_mm512_add_ps(acc[r], acc_hi[r])) -
                 float(offset) * _mm512_reduce_add_ps(corr[r]);
}

// ---- AVX2 ------------------------------------------------------------------------------------

// Σ code·q of one block as 8 int32 lanes. vpmaddubsw saturates pairs at 16 bits: q4 codes
// (≤ 15) are safe as they are; q8 codes are turned back into signed values and multiplied as
// |w| · (q with w's sign), at most 2 · 127 · 127 per pair.
template <QuantFormat F>
QWEN3TTS_AVX2 inline __m256i block_dot_avx2(__m256i u, __m256i x) {
    const __m256i ones = _mm256_set1_epi16(1);
    if constexpr (F == QuantFormat::q8) {
        const __m256i w = _mm256_xor_si256(u, _mm256_set1_epi8(char(0x80)));
        return _mm256_madd_epi16(_mm256_maddubs_epi16(_mm256_abs_epi8(w), _mm256_sign_epi8(x, w)),
                                 ones);
    } else {
        return _mm256_madd_epi16(_mm256_maddubs_epi16(u, x), ones);
    }
}

template <QuantFormat F>
QWEN3TTS_AVX2 float dot_avx2(const RowPair& rp, int offset) {
    __m256 acc = _mm256_setzero_ps();
    float corr = 0;
    for (int64_t b = 0; b < rp.blocks; b += 2) {
        __m256i u[2];
        const int in_pair = b + 1 < rp.blocks ? 2 : 1;
        if constexpr (F == QuantFormat::q8) {
            for (int h = 0; h < in_pair; ++h)
                u[h] = _mm256_loadu_si256(
                    reinterpret_cast<const __m256i*>(rp.codes + (b + h) * kQuantBlock));
        } else if (in_pair == 1) {  // an odd last block: 16 bytes, weights j and 16 + j
            const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(rp.codes + b * 16));
            const __m128i nibble = _mm_set1_epi8(0x0f);
            u[0] = _mm256_set_m128i(_mm_and_si128(_mm_srli_epi16(v, 4), nibble),
                                    _mm_and_si128(v, nibble));
        } else {
            const __m256i v =
                _mm256_loadu_si256(reinterpret_cast<const __m256i*>(rp.codes + b * 16));
            const __m256i nibble = _mm256_set1_epi8(0x0f);
            u[0] = _mm256_and_si256(v, nibble);
            u[1] = _mm256_and_si256(_mm256_srli_epi16(v, 4), nibble);
        }
        for (int h = 0; h < in_pair; ++h) {
            const __m256i x =
                _mm256_loadu_si256(reinterpret_cast<const __m256i*>(rp.xq + (b + h) * kQuantBlock));
            const float ws = _cvtsh_ss(rp.wscale[b + h]);
            acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(block_dot_avx2<F>(u[h], x)),
                                  _mm256_set1_ps(ws * rp.xscale[b + h]), acc);
            if constexpr (F == QuantFormat::q4) corr += ws * rp.xsum[b + h];
        }
    }
    return hsum256(acc) - float(F == QuantFormat::q4 ? offset : 0) * corr;
}

// ---- Activations -----------------------------------------------------------------------------

// Blocks [0, blocks) of x: the rule of QuantizedActivations::quantize, 32 values in two
// registers. x · (127 / max) rounded to nearest even (as lrint in the default mode).
QWEN3TTS_AVX512 void quantize_blocks_avx512(const float* x, int64_t blocks, int8_t* q,
                                            float* scales, float* sums) {
    const __m512 abs_mask = _mm512_castsi512_ps(_mm512_set1_epi32(0x7fffffff));
    const __m512i lo = _mm512_set1_epi32(-127), hi = _mm512_set1_epi32(127);
    for (int64_t b = 0; b < blocks; ++b) {
        const __m512 x0 = _mm512_loadu_ps(x + b * kQuantBlock);
        const __m512 x1 = _mm512_loadu_ps(x + b * kQuantBlock + 16);
        // x - x is 0 for a finite value, NaN for an infinity or a NaN.
        const __mmask16 finite =
            _mm512_cmp_ps_mask(_mm512_sub_ps(x0, x0), _mm512_setzero_ps(), _CMP_EQ_OQ) &
            _mm512_cmp_ps_mask(_mm512_sub_ps(x1, x1), _mm512_setzero_ps(), _CMP_EQ_OQ);
        if (finite != 0xffff) {
            std::fill_n(q + b * kQuantBlock, kQuantBlock, int8_t(0));
            scales[b] = sums[b] = std::numeric_limits<float>::quiet_NaN();
            continue;
        }
        const float max_abs = _mm512_reduce_max_ps(
            _mm512_max_ps(_mm512_and_ps(x0, abs_mask), _mm512_and_ps(x1, abs_mask)));
        const float scale = max_abs / 127.0f;
        const float inv_s = max_abs > 0 ? 127.0f / max_abs : 0.0f;
        if (!std::isfinite(inv_s)) {  // a block of subnormals: the scalar rule's conversions
            int sum = 0;
            for (int64_t j = 0; j < kQuantBlock; ++j) {
                const float v = x[b * kQuantBlock + j] * inv_s;
                sum += q[b * kQuantBlock + j] = int8_t(std::clamp(int(std::lrint(v)), -127, 127));
            }
            scales[b] = scale;
            sums[b] = scale * float(sum);
            continue;
        }
        const __m512 inv = _mm512_set1_ps(inv_s);
        const __m512i q0 = _mm512_min_epi32(
            hi, _mm512_max_epi32(
                    lo, _mm512_cvt_roundps_epi32(_mm512_mul_ps(x0, inv),
                                                 _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)));
        const __m512i q1 = _mm512_min_epi32(
            hi, _mm512_max_epi32(
                    lo, _mm512_cvt_roundps_epi32(_mm512_mul_ps(x1, inv),
                                                 _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(q + b * kQuantBlock), _mm512_cvtepi32_epi8(q0));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(q + b * kQuantBlock + 16),
                         _mm512_cvtepi32_epi8(q1));
        scales[b] = scale;
        sums[b] = scale * float(_mm512_reduce_add_epi32(_mm512_add_epi32(q0, q1)));
    }
}

// ---- Dispatch --------------------------------------------------------------------------------

// Activation rows [i0, i0 + NX) against weight row r into y[i, r].
template <QuantFormat F, int NX>
QWEN3TTS_AVX512_VNNI inline void tile_vnni(const QuantizedActivations& x, const int8_t* xq,
                                           const QuantizedWeights& w, const float* bias, float* y,
                                           int64_t r, int64_t i0) {
    const int64_t blocks = w.blocks_per_row();
    ActRows a{};
#pragma GCC unroll 4
    for (int j = 0; j < NX; ++j) {
        a.xq[j] = xq + (i0 + j) * x.cols;
        a.xscale[j] = x.scales.data() + (i0 + j) * blocks;
        a.xsum[j] = x.scaled_sums.data() + (i0 + j) * blocks;
    }
    float v[NX];
    dot_vnni<F, NX>(w.codes.data() + size_t(r) * w.row_code_bytes(), w.scales.data() + r * blocks,
                    blocks, a, w.code_offset(), v);
#pragma GCC unroll 4
    for (int j = 0; j < NX; ++j) y[(i0 + j) * w.rows + r] = v[j] + (bias ? bias[r] : 0.0f);
}

// Weight row outer, activation rows inner in tiles of 4, 2, 1: the row is read from memory
// once for all n, and unpacked once per tile. xq: x's codes, in q4_block_order for q4.
template <QuantFormat F>
QWEN3TTS_AVX512_VNNI void rows_vnni(const QuantizedActivations& x, const int8_t* xq,
                                    const QuantizedWeights& w, const float* bias, float* y,
                                    int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
        int64_t i = 0;
        for (; i + 4 <= x.rows; i += 4) tile_vnni<F, 4>(x, xq, w, bias, y, r, i);
        for (; i + 2 <= x.rows; i += 2) tile_vnni<F, 2>(x, xq, w, bias, y, r, i);
        for (; i < x.rows; ++i) tile_vnni<F, 1>(x, xq, w, bias, y, r, i);
    }
}

// x's codes with each whole group of 4 blocks (from the row's start) stored as blocks
// 0, 2, 1, 3: the order in which dot_vnni unpacks a 64-byte load of q4 codes. Later blocks
// stay in order.
void q4_block_order(const QuantizedActivations& x, std::vector<int8_t>& out) {
    out.resize(x.q.size());
    const int64_t groups = x.cols / (4 * kQuantBlock);
    for (int64_t i = 0; i < x.rows; ++i) {
        const int8_t* src = x.q.data() + i * x.cols;
        int8_t* dst = out.data() + i * x.cols;
        for (int64_t g = 0; g < groups; ++g, src += 4 * kQuantBlock, dst += 4 * kQuantBlock)
            for (int j = 0; j < 4; ++j)
                std::memcpy(dst + j * kQuantBlock, src + (j % 2 * 2 + j / 2) * kQuantBlock,
                            kQuantBlock);
        std::memcpy(dst, src, size_t(x.cols - groups * 4 * kQuantBlock));
    }
}

template <QuantFormat F>
void rows_avx2(const QuantizedActivations& x, const QuantizedWeights& w, const float* bias,
               float* y, int64_t r0, int64_t r1) {
    const int64_t blocks = w.blocks_per_row();
    for (int64_t r = r0; r < r1; ++r)
        for (int64_t i = 0; i < x.rows; ++i) {
            const RowPair rp{w.codes.data() + size_t(r) * w.row_code_bytes(),
                             w.scales.data() + r * blocks,
                             x.q.data() + i * x.cols,
                             x.scales.data() + i * blocks,
                             x.scaled_sums.data() + i * blocks,
                             blocks};
            y[i * w.rows + r] = dot_avx2<F>(rp, w.code_offset()) + (bias ? bias[r] : 0.0f);
        }
}

// xq4: x's codes in q4_block_order (the VNNI kernel's q4 rows read them).
void rows(Kernel k, const QuantizedActivations& x, const int8_t* xq4, const QuantizedWeights& w,
          const float* bias, float* y, int64_t r0, int64_t r1) {
    const bool q8 = w.format == QuantFormat::q8;
    if (k == Kernel::avx512_vnni && q8)
        rows_vnni<QuantFormat::q8>(x, x.q.data(), w, bias, y, r0, r1);
    else if (k == Kernel::avx512_vnni)
        rows_vnni<QuantFormat::q4>(x, xq4, w, bias, y, r0, r1);
    else if (q8)
        rows_avx2<QuantFormat::q8>(x, w, bias, y, r0, r1);
    else
        rows_avx2<QuantFormat::q4>(x, w, bias, y, r0, r1);
}

}  // namespace

void quantize_activations_cpu(const float* x, int64_t n, int64_t cols, QuantizedActivations& out) {
    if (cpu::active_isa() != cpu::Isa::avx512) {
        out.quantize(x, n, cols);
        return;
    }
    QWEN3TTS_ASSERT(cols % kQuantBlock == 0);
    out.rows = n;
    out.cols = cols;
    const int64_t blocks = n * cols / kQuantBlock;
    out.q.resize(size_t(n * cols));
    out.scales.resize(size_t(blocks));
    out.scaled_sums.resize(size_t(blocks));
    quantize_blocks_avx512(x, blocks, out.q.data(), out.scales.data(), out.scaled_sums.data());
}

const char* linear_quant_cpu_kernel() {
    switch (active_kernel()) {
        case Kernel::avx512_vnni:
            return "avx512-vnni";
        case Kernel::avx2:
            return "avx2";
        default:
            return "generic";
    }
}

void linear_quant_cpu(ThreadPool* pool, const QuantizedActivations& x, const QuantizedWeights& w,
                      const float* bias, float* y) {
    const QuantizedWeights* ws[1] = {&w};
    const float* biases[1] = {bias};
    float* ys[1] = {y};
    linear_quant_cpu_group(pool, x, ws, biases, ys, 1);
}

void linear_quant_cpu_group(ThreadPool* pool, const QuantizedActivations& x,
                            const QuantizedWeights* const* ws, const float* const* biases,
                            float* const* ys, int count) {
    int64_t total = 0;
    size_t bytes = 0;
    for (int j = 0; j < count; ++j) {
        QWEN3TTS_ASSERT(x.cols == ws[j]->cols);
        total += ws[j]->rows;
        bytes += ws[j]->nbytes();
    }
    const Kernel k = active_kernel();  // here, not in the workers: it may throw
    if (k == Kernel::generic) {
        for (int j = 0; j < count; ++j) linear_quant_reference(x, *ws[j], biases[j], ys[j]);
        return;
    }
    // Grows to the largest input seen, then stays (a linear never runs inside another on the
    // same thread).
    thread_local std::vector<int8_t> xq4;
    if (k == Kernel::avx512_vnni &&
        std::any_of(ws, ws + count, [](auto* w) { return w->format == QuantFormat::q4; }))
        q4_block_order(x, xq4);
    const int8_t* xq4p = xq4.data();  // the workers' own thread_local is not this one
    // [r0, r1) of the concatenated output rows, mapped back to each matrix.
    auto body = [&](int64_t r0, int64_t r1) {
        int64_t offset = 0;
        for (int j = 0; j < count; ++j) {
            const int64_t b = std::max(r0, offset), e = std::min(r1, offset + ws[j]->rows);
            if (b < e) rows(k, x, xq4p, *ws[j], biases[j], ys[j], b - offset, e - offset);
            offset += ws[j]->rows;
        }
    };
    // Small layers are not worth waking the other threads for.
    if (pool && bytes * size_t(x.rows) >= (64u << 10))
        pool->parallel_for(total, 16, body);
    else
        body(0, total);
}

}  // namespace qwen3tts::backend
