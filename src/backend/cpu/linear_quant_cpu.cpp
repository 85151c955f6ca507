#include "backend/cpu/linear_quant_cpu.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "backend/cpu/cpu_features.hpp"
#include "backend/cpu/simd_targets.hpp"
#include "backend/reference/linear_quant_ref.hpp"
#include "core/error.hpp"

namespace qwen3tts::backend {

namespace {

enum class Kernel { generic, avx2, avx2_vnni, avx512_vnni };

Kernel active_kernel() {
    switch (cpu::active_isa()) {
        case cpu::Isa::avx512:
            if (cpu::has_avx512_vnni()) return Kernel::avx512_vnni;
            [[fallthrough]];
        case cpu::Isa::avx2:
            return cpu::has_avx_vnni() ? Kernel::avx2_vnni : Kernel::avx2;
        default:
            return Kernel::generic;
    }
}

// The activation rows of one register tile, as QuantizedActivations holds them: each row on
// its own. The kernels ask for row r's four bytes `piece` (0..7) of block b, its scale, and the
// value its int32 dot starts from (−offset · Σq, which removes the codes' offset).
template <int NX>
struct ActRows {
    const int8_t* q[NX];
    const float* scale[NX];
    const int32_t* sum[NX];
    int offset;
    const int8_t* piece(int r, int64_t b, int p) const { return q[r] + b * kQuantBlock + p * 4; }
    float scale_of(int r, int64_t b) const { return scale[r][b]; }
    int32_t dot_start(int r, int64_t b) const { return -offset * sum[r][b]; }
};

// What a kernel's int32 dots start from, −offset · Σq: the codes' offset, except for plain
// AVX2 q8 (no VNNI), whose sign trick removes it itself.
int dot_offset(bool vnni, const QuantizedWeights& w) {
    return vnni || w.format == QuantFormat::q4 ? w.code_offset() : 0;
}

// One tile of PackedTiles<R> as the kernels read it.
template <int R>
struct PackedRows {
    const int8_t* q;
    const float* scale;
    const int32_t* start;
    const int8_t* piece(int r, int64_t b, int p) const { return q + ((b * 8 + p) * R + r) * 4; }
    float scale_of(int r, int64_t b) const { return scale[b * R + r]; }
    int32_t dot_start(int r, int64_t b) const { return start[b * R + r]; }
};

// Full tiles of R activation rows repacked for a kernel's largest tile (n >= R: prefill, many
// streams): per tile and block, the 8 pieces of 4 bytes of all R rows (piece-major), then their
// scales and dot starts, so one pointer with constant offsets reaches every operand. With a
// pointer per row, the 8-row AVX-512 tile's 24 pointers (and the 4-row AVX2 tile's 12) did not
// fit the registers and were reloaded from the stack in the inner loop (Zen 4, 2 threads,
// 1.7B gate at n = 16: AVX-512 q4 630-658 -> 585-607 us, q8 696-711 -> 631-690 us; AVX2 q4
// 1768-1838 -> 1452-1622 us, q8 unchanged within the noise). The values are those of ActRows:
// the same bits.
template <int R>
struct PackedTiles {
    int64_t tiles = 0, blocks = 0;
    std::vector<int8_t> q;        // tiles × blocks × 8 pieces × R rows × 4 bytes
    std::vector<float> scales;    // tiles × blocks × R rows
    std::vector<int32_t> starts;  // tiles × blocks × R rows
    // `offset`: what the kernel's dots start from, −offset · Σq (0 where it removes it itself).
    void pack(const QuantizedActivations& x, int offset);
    // The tile of activation rows [i0, i0 + R).
    PackedRows<R> rows(int64_t i0) const {
        const int64_t at = i0 / R * blocks * R;
        return {q.data() + at * 32, scales.data() + at, starts.data() + at};
    }
};

template <int R>
void PackedTiles<R>::pack(const QuantizedActivations& x, int offset) {
    tiles = x.rows / R;
    blocks = x.cols / kQuantBlock;
    q.resize(size_t(tiles * R * x.cols));
    scales.resize(size_t(tiles * blocks * R));
    starts.resize(scales.size());
    for (int64_t t = 0; t < tiles; ++t)
        for (int r = 0; r < R; ++r) {
            const int64_t row = t * R + r;
            for (int64_t b = 0; b < blocks; ++b) {
                const int64_t at = (t * blocks + b) * R, piece0 = (t * blocks + b) * 8;
                for (int p = 0; p < 8; ++p)
                    std::memcpy(q.data() + ((piece0 + p) * R + r) * 4,
                                x.q.data() + row * x.cols + b * kQuantBlock + p * 4, 4);
                scales[size_t(at + r)] = x.scales[size_t(row * blocks + b)];
                starts[size_t(at + r)] = -offset * x.sums[size_t(row * blocks + b)];
            }
        }
}

// 4 activation bytes from p as one 32-bit value, for a broadcast.
inline int32_t four_bytes(const int8_t* p) {
    int32_t v;
    std::memcpy(&v, p, 4);
    return v;
}

// Every lane of both kernels does, per block b of its row and an activation row x:
//   dot = Σ_j (code_j − offset) · q_j           exact, in int32
//   acc = fma(float(dot), ws_b · xs_b, acc)    in block order
// so an output does not depend on the level (AVX-512 or AVX2), the number of activation rows
// in the tile, or the batch it came in.

// ---- AVX-512 VNNI ----------------------------------------------------------------------------

// Cache lines a tile asks for ahead of their use, spread over its blocks.
struct Prefetch {
    const uint8_t* from = nullptr;
    int64_t lines = 0;
};

// One 64-byte line of a group's codes. For one activation row the lines are loaded in address
// order: GCC otherwise hoisted a later line's load ahead of the block's first, and the hardware
// prefetchers followed that zigzag badly.
template <int NX>
QWEN3TTS_AVX512_VNNI inline __m512i code_line(const uint8_t* p) {
    __m512i v = _mm512_loadu_si512(p);
    if constexpr (NX == 1) asm volatile("" : "+v"(v));
    return v;
}

// dot + the products of each lane's 4 codes with the 4 activation bytes at q (signed),
// broadcast by the instruction itself ({1to16}). GCC emitted a separate vpbroadcastd for every
// _mm512_set1_epi32 operand: one instruction more per vpdpbusd, which at one activation row
// (compute and the miss window both bound by instructions per byte) cost q4 10 % in cache and
// 5 % streaming from L3 (Zen 4, same process, alternating).
QWEN3TTS_AVX512_VNNI inline __m512i dpbusd_broadcast(__m512i dot, __m512i codes, const int8_t* q) {
    asm("vpdpbusd %[q]%{1to16%}, %[codes], %[dot]"
        : [dot] "+v"(dot)
        : [codes] "v"(codes), [q] "m"(*reinterpret_cast<const int32_t*>(q)));
    return dot;
}

// The 16 rows of group `g` (lanes) against NX activation rows (ActRows or PackedRows), into
// acc[NX].
template <QuantFormat F, int NX, class Rows>
QWEN3TTS_AVX512_VNNI inline void group_vnni(const QuantizedWeights& w, int64_t g, const Rows& x,
                                            Prefetch prefetch, __m512* acc) {
    const int64_t blocks = w.blocks_per_row();
    const uint8_t* codes = w.codes.data() + g * w.group_code_bytes();
    const uint16_t* wscale = w.scales.data() + g * blocks * kQuantLanes;
    const __m512i nibble = _mm512_set1_epi8(0x0f);
#pragma GCC unroll 8
    for (int r = 0; r < NX; ++r) acc[r] = _mm512_setzero_ps();
    // Lines are spread evenly over the blocks: line l is asked for in block
    // floor(l · blocks / lines), counted with a running remainder rather than a 64-bit division
    // per block (that alone, one thread, 1.7B talker q8 with the prefetch then on at one row:
    // 1.50-1.78x -> 1.35-1.38x the floor).
    const uint8_t* fetch = prefetch.from;
    int64_t due = 0;
    for (int64_t b = 0; b < blocks; ++b, codes += w.group_block_bytes()) {
        for (due += prefetch.lines; due >= blocks; due -= blocks, fetch += 64)
            _mm_prefetch(reinterpret_cast<const char*>(fetch), _MM_HINT_T0);
        // vpdpbusd sums code · q; starting from −offset · Σq removes the offset.
        __m512i dot[NX];
#pragma GCC unroll 8
        for (int r = 0; r < NX; ++r) dot[r] = _mm512_set1_epi32(x.dot_start(r, b));
        if constexpr (F == QuantFormat::q4) {
            // Low nibbles into dot, high ones as 16 · code into dhi (one vpandnd, no shift),
            // divided back exactly once per block: two chains of 4 instead of one of 8.
            __m512i dhi[NX];
#pragma GCC unroll 8
            for (int r = 0; r < NX; ++r) dhi[r] = _mm512_setzero_si512();
#pragma GCC unroll 4
            for (int t = 0; t < 4; ++t) {
                const __m512i v = code_line<NX>(codes + t * 64);
                const __m512i lo = _mm512_and_si512(v, nibble);
                const __m512i hi = _mm512_andnot_si512(nibble, v);
#pragma GCC unroll 8
                for (int r = 0; r < NX; ++r) {
                    dot[r] = dpbusd_broadcast(dot[r], lo, x.piece(r, b, 2 * t));
                    dhi[r] = dpbusd_broadcast(dhi[r], hi, x.piece(r, b, 2 * t + 1));
                }
            }
#pragma GCC unroll 8
            for (int r = 0; r < NX; ++r)
                dot[r] = _mm512_add_epi32(dot[r], _mm512_srai_epi32(dhi[r], 4));
        } else {
#pragma GCC unroll 8
            for (int t = 0; t < 8; ++t) {
                const __m512i v = code_line<NX>(codes + t * 64);
#pragma GCC unroll 8
                for (int r = 0; r < NX; ++r) dot[r] = dpbusd_broadcast(dot[r], v, x.piece(r, b, t));
            }
        }
        const __m512 ws = _mm512_cvtph_ps(
            _mm256_loadu_si256(reinterpret_cast<const __m256i*>(wscale + b * kQuantLanes)));
#pragma GCC unroll 8
        for (int r = 0; r < NX; ++r)
            acc[r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(dot[r]),
                                     _mm512_mul_ps(ws, _mm512_set1_ps(x.scale_of(r, b))), acc[r]);
    }
}

// ---- AVX2 ------------------------------------------------------------------------------------

// Σ code · q of 4 bytes per lane as int32. vpmaddubsw saturates pairs at 16 bits: q4 codes
// (≤ 15) are safe as they are; q8 codes are turned into signed values (code − 128) and
// multiplied as |w| · (q with w's sign), at most 2 · 127 · 127 per pair, so the q8 result has
// the offset removed already.
template <QuantFormat F>
QWEN3TTS_AVX2 inline __m256i dot4_avx2(__m256i codes, __m256i q) {
    const __m256i ones = _mm256_set1_epi16(1);
    if constexpr (F == QuantFormat::q8) {
        const __m256i w = _mm256_xor_si256(codes, _mm256_set1_epi8(char(0x80)));
        return _mm256_madd_epi16(_mm256_maddubs_epi16(_mm256_abs_epi8(w), _mm256_sign_epi8(q, w)),
                                 ones);
    } else {
        return _mm256_madd_epi16(_mm256_maddubs_epi16(codes, q), ones);
    }
}

// dot + d, left in its register: free to reassociate a row's eight adds per block, GCC built
// trees of all the rows' q4 products at once and spilled most of them to the stack. (The q8
// loop, left free, was faster than with this at 2048 columns.)
QWEN3TTS_AVX2 inline __m256i add_in_place(__m256i dot, __m256i d) {
    dot = _mm256_add_epi32(dot, d);
    __asm__("" : "+x"(dot));
    return dot;
}

// Halves h0 .. h0+NH-1 of the 16 rows of group `g` (8 lanes each) against NX activation rows,
// into acc[NH][NX]: the codes are loaded and unpacked once for the NX rows. 16 ymm registers
// hold NX = 4 of one half, or one row of both halves (one pass over the codes from memory).
template <QuantFormat F, int NX, int NH, class Rows>
QWEN3TTS_AVX2 inline void group_halves_avx2(const QuantizedWeights& w, int64_t g, int h0,
                                            const Rows& x, __m256 (*acc)[NX]) {
    const int64_t blocks = w.blocks_per_row();
    const uint8_t* codes = w.codes.data() + g * w.group_code_bytes() + h0 * 32;
    const uint16_t* wscale = w.scales.data() + g * blocks * kQuantLanes + h0 * 8;
    const __m256i nibble = _mm256_set1_epi8(0x0f);
#pragma GCC unroll 2
    for (int h = 0; h < NH; ++h)
#pragma GCC unroll 4
        for (int r = 0; r < NX; ++r) acc[h][r] = _mm256_setzero_ps();
    for (int64_t b = 0; b < blocks; ++b, codes += w.group_block_bytes()) {
#pragma GCC unroll 2
        for (int h = 0; h < NH; ++h) {
            __m256i dot[NX];
#pragma GCC unroll 4
            for (int r = 0; r < NX; ++r) dot[r] = _mm256_set1_epi32(x.dot_start(r, b));
#pragma GCC unroll 8
            for (int t = 0; t < (F == QuantFormat::q4 ? 4 : 8); ++t) {
                const __m256i v =
                    _mm256_loadu_si256(reinterpret_cast<const __m256i*>(codes + t * 64 + h * 32));
                if constexpr (F == QuantFormat::q4) {
                    const __m256i lo = _mm256_and_si256(v, nibble);
                    const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), nibble);
#pragma GCC unroll 4
                    for (int r = 0; r < NX; ++r) {
                        dot[r] = add_in_place(
                            dot[r],
                            dot4_avx2<F>(lo, _mm256_set1_epi32(four_bytes(x.piece(r, b, 2 * t)))));
                        dot[r] = add_in_place(
                            dot[r], dot4_avx2<F>(hi, _mm256_set1_epi32(
                                                         four_bytes(x.piece(r, b, 2 * t + 1)))));
                    }
                } else {
#pragma GCC unroll 4
                    for (int r = 0; r < NX; ++r)
                        dot[r] = _mm256_add_epi32(
                            dot[r],
                            dot4_avx2<F>(v, _mm256_set1_epi32(four_bytes(x.piece(r, b, t)))));
                }
            }
            const __m256 ws = _mm256_cvtph_ps(_mm_loadu_si128(
                reinterpret_cast<const __m128i*>(wscale + b * kQuantLanes + h * 8)));
#pragma GCC unroll 4
            for (int r = 0; r < NX; ++r)
                acc[h][r] =
                    _mm256_fmadd_ps(_mm256_cvtepi32_ps(dot[r]),
                                    _mm256_mul_ps(ws, _mm256_set1_ps(x.scale_of(r, b))), acc[h][r]);
        }
    }
}

// group_halves_avx2 with AVX-VNNI: one vpdpbusd per 4 codes and lane, the chain starting from
// −offset · Σq as in group_vnni, so q8 needs no sign trick. The same int32 dot, the same bits.
// A copy rather than a shared template: the target attribute is per function, and the plain
// kernel must not be compiled with AVX-VNNI allowed (CPUs without it run it).
template <QuantFormat F, int NX, int NH, class Rows>
QWEN3TTS_AVX2_VNNI inline void group_halves_avxvnni(const QuantizedWeights& w, int64_t g, int h0,
                                                    const Rows& x, __m256 (*acc)[NX]) {
    const int64_t blocks = w.blocks_per_row();
    const uint8_t* codes = w.codes.data() + g * w.group_code_bytes() + h0 * 32;
    const uint16_t* wscale = w.scales.data() + g * blocks * kQuantLanes + h0 * 8;
    const __m256i nibble = _mm256_set1_epi8(0x0f);
#pragma GCC unroll 2
    for (int h = 0; h < NH; ++h)
#pragma GCC unroll 4
        for (int r = 0; r < NX; ++r) acc[h][r] = _mm256_setzero_ps();
    for (int64_t b = 0; b < blocks; ++b, codes += w.group_block_bytes()) {
#pragma GCC unroll 2
        for (int h = 0; h < NH; ++h) {
            __m256i dot[NX];
#pragma GCC unroll 4
            for (int r = 0; r < NX; ++r) dot[r] = _mm256_set1_epi32(x.dot_start(r, b));
#pragma GCC unroll 8
            for (int t = 0; t < (F == QuantFormat::q4 ? 4 : 8); ++t) {
                const __m256i v =
                    _mm256_loadu_si256(reinterpret_cast<const __m256i*>(codes + t * 64 + h * 32));
                if constexpr (F == QuantFormat::q4) {
                    const __m256i lo = _mm256_and_si256(v, nibble);
                    const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), nibble);
#pragma GCC unroll 4
                    for (int r = 0; r < NX; ++r) {
                        dot[r] = _mm256_dpbusd_avx_epi32(
                            dot[r], lo, _mm256_set1_epi32(four_bytes(x.piece(r, b, 2 * t))));
                        dot[r] = _mm256_dpbusd_avx_epi32(
                            dot[r], hi, _mm256_set1_epi32(four_bytes(x.piece(r, b, 2 * t + 1))));
                    }
                } else {
#pragma GCC unroll 4
                    for (int r = 0; r < NX; ++r)
                        dot[r] = _mm256_dpbusd_avx_epi32(
                            dot[r], v, _mm256_set1_epi32(four_bytes(x.piece(r, b, t))));
                }
            }
            const __m256 ws = _mm256_cvtph_ps(_mm_loadu_si128(
                reinterpret_cast<const __m128i*>(wscale + b * kQuantLanes + h * 8)));
#pragma GCC unroll 4
            for (int r = 0; r < NX; ++r)
                acc[h][r] =
                    _mm256_fmadd_ps(_mm256_cvtepi32_ps(dot[r]),
                                    _mm256_mul_ps(ws, _mm256_set1_ps(x.scale_of(r, b))), acc[h][r]);
        }
    }
}

// ---- Activations -----------------------------------------------------------------------------

// Blocks [0, blocks) of x: the rule of QuantizedActivations::quantize, 32 values in two
// registers. x · (127 / max) rounded to nearest even (as lrint in the default mode).
QWEN3TTS_AVX512 void quantize_blocks_avx512(const float* x, int64_t blocks, int8_t* q,
                                            float* scales, int32_t* sums) {
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
            scales[b] = std::numeric_limits<float>::quiet_NaN();
            sums[b] = 0;
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
            sums[b] = sum;
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
        sums[b] = _mm512_reduce_add_epi32(_mm512_add_epi32(q0, q1));
    }
}

// ---- Dispatch --------------------------------------------------------------------------------

// Activation rows [i0, i0 + NX) of x.
template <int NX>
ActRows<NX> act_rows(const QuantizedActivations& x, int64_t i0, int offset) {
    const int64_t blocks = x.cols / kQuantBlock;
    ActRows<NX> a{};
    a.offset = offset;
    for (int j = 0; j < NX; ++j) {
        a.q[j] = x.q.data() + (i0 + j) * x.cols;
        a.scale[j] = x.scales.data() + (i0 + j) * blocks;
        a.sum[j] = x.sums.data() + (i0 + j) * blocks;
    }
    return a;
}

// NX activation rows (from i0) against group g of w, into y (only the group's real rows are
// written).
template <QuantFormat F, int NX, class Rows>
QWEN3TTS_AVX512_VNNI inline void tile_vnni(const Rows& rows, const QuantizedWeights& w,
                                           const float* bias, float* y, int64_t g, int64_t i0,
                                           Prefetch prefetch) {
    __m512 acc[NX];
    group_vnni<F, NX>(w, g, rows, prefetch, acc);
    const int64_t r0 = g * kQuantLanes;
    const __mmask16 real = __mmask16((1u << std::min<int64_t>(kQuantLanes, w.rows - r0)) - 1u);
    const __m512 b = bias ? _mm512_maskz_loadu_ps(real, bias + r0) : _mm512_setzero_ps();
#pragma GCC unroll 8
    for (int j = 0; j < NX; ++j)
        _mm512_mask_storeu_ps(y + (i0 + j) * w.rows + r0, real, _mm512_add_ps(acc[j], b));
}

// Groups [g0, g1) of w against every activation row, in tiles of 8, 4, 2, 1 rows: a group's
// codes are read from memory once and stay in cache for the tiles after the first. The tiles
// of a group share out the fetching of the next group's codes: left to the hardware, the first
// tile of each group waited on memory while the others had none to do. One row (a stream's
// decode step) is left to the hardware: its codes are one sequential stream, loaded in address
// order (code_line), which the prefetchers follow, while fetching a whole group ahead into L1
// evicted the group in use (a q8 group of 2048 columns is 32 KiB, Zen 4's whole L1D). Zen 4,
// `bench_linear 1 --steps --n 1`, 1.7B talker q8: 1.55-1.67x the floor with the prefetch off
// alone, 1.40-1.42x with ordered loads alone, 1.07-1.10x with both; q4 within the noise.
template <QuantFormat F>
QWEN3TTS_AVX512_VNNI void groups_vnni(const QuantizedActivations& x, const PackedTiles<8>* packed,
                                      const QuantizedWeights& w, const float* bias, float* y,
                                      int64_t g0, int64_t g1) {
    const int64_t n = x.rows, tiles = n / 8 + n % 8 / 4 + n % 4 / 2 + n % 2;
    const int64_t lines = w.group_code_bytes() / 64;
    const int offset = dot_offset(true, w);
    for (int64_t g = g0; g < g1; ++g) {
        const uint8_t* next = n > 1 && g + 1 < w.groups()  // the group to prefetch, if any
                                  ? w.codes.data() + (g + 1) * w.group_code_bytes()
                                  : nullptr;
        int64_t tile = 0;
        auto share = [&] {  // this tile's part of the next group
            if (!next) return Prefetch{};
            const int64_t l0 = lines * tile / tiles, l1 = lines * (tile + 1) / tiles;
            ++tile;
            return Prefetch{next + l0 * 64, l1 - l0};
        };
        int64_t i = 0;
        for (; i + 8 <= n; i += 8) {
            if (packed)
                tile_vnni<F, 8>(packed->rows(i), w, bias, y, g, i, share());
            else
                tile_vnni<F, 8>(act_rows<8>(x, i, offset), w, bias, y, g, i, share());
        }
        if (i + 4 <= n)
            tile_vnni<F, 4>(act_rows<4>(x, i, offset), w, bias, y, g, i, share()), i += 4;
        if (i + 2 <= n)
            tile_vnni<F, 2>(act_rows<2>(x, i, offset), w, bias, y, g, i, share()), i += 2;
        if (i < n) tile_vnni<F, 1>(act_rows<1>(x, i, offset), w, bias, y, g, i, share());
    }
}

// acc[NH][NX] of halves h0 .. h0+NH-1 of group g into y, plus bias (real rows only).
template <int NX, int NH>
QWEN3TTS_AVX2 inline void store_halves_avx2(const __m256 (*acc)[NX], const QuantizedWeights& w,
                                            const float* bias, float* y, int64_t g, int h0,
                                            int64_t i0) {
#pragma GCC unroll 2
    for (int h = 0; h < NH; ++h) {
        const int64_t r0 = g * kQuantLanes + (h0 + h) * 8;
        const int64_t real = std::min<int64_t>(8, w.rows - r0);
        if (real <= 0) return;
        const __m256i lanes = _mm256_cmpgt_epi32(_mm256_set1_epi32(int(real)),
                                                 _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
        const __m256 b = bias ? _mm256_maskload_ps(bias + r0, lanes) : _mm256_setzero_ps();
#pragma GCC unroll 4
        for (int j = 0; j < NX; ++j)
            _mm256_maskstore_ps(y + (i0 + j) * w.rows + r0, lanes, _mm256_add_ps(acc[h][j], b));
    }
}

// Halves h0 .. h0+NH-1 of group g against NX activation rows (from i0), into y.
template <QuantFormat F, int NX, int NH, class Rows>
QWEN3TTS_AVX2 inline void tile_avx2(const Rows& rows, const QuantizedWeights& w, const float* bias,
                                    float* y, int64_t g, int h0, int64_t i0) {
    __m256 acc[NH][NX];
    group_halves_avx2<F, NX, NH>(w, g, h0, rows, acc);
    store_halves_avx2<NX, NH>(acc, w, bias, y, g, h0, i0);
}

template <QuantFormat F, int NX, int NH, class Rows>
QWEN3TTS_AVX2_VNNI inline void tile_avxvnni(const Rows& rows, const QuantizedWeights& w,
                                            const float* bias, float* y, int64_t g, int h0,
                                            int64_t i0) {
    __m256 acc[NH][NX];
    group_halves_avxvnni<F, NX, NH>(w, g, h0, rows, acc);
    store_halves_avx2<NX, NH>(acc, w, bias, y, g, h0, i0);
}

template <QuantFormat F, bool Vnni, int NX, int NH, class Rows>
inline void tile_8_lanes(const Rows& rows, const QuantizedWeights& w, const float* bias, float* y,
                         int64_t g, int h0, int64_t i0) {
    if constexpr (Vnni)
        tile_avxvnni<F, NX, NH>(rows, w, bias, y, g, h0, i0);
    else
        tile_avx2<F, NX, NH>(rows, w, bias, y, g, h0, i0);
}

// Groups [g0, g1) of w against every activation row, 8 lanes at a time (AVX2, with AVX-VNNI
// when `Vnni`). One row (a stream's decode step, codes streaming from memory): both halves of
// a group in one pass. More: each half in tiles of 4, 2, 1 rows, its codes staying in L1 after
// the first; the full tiles of 4 read `packed` when given. QWEN3TTS_ISA=avx2, 0.6B, 2 threads:
// prefill of 17 positions q8 177-186 -> 143-150 ms without AVX-VNNI (q4 unchanged, 136 ms).
template <QuantFormat F, bool Vnni>
void groups_8_lanes(const QuantizedActivations& x, const PackedTiles<4>* packed,
                    const QuantizedWeights& w, const float* bias, float* y, int64_t g0,
                    int64_t g1) {
    const int64_t n = x.rows;
    const int offset = dot_offset(Vnni, w);
    for (int64_t g = g0; g < g1; ++g) {
        if (n == 1) {
            tile_8_lanes<F, Vnni, 1, 2>(act_rows<1>(x, 0, offset), w, bias, y, g, 0, 0);
            continue;
        }
        for (int h = 0; h < 2; ++h) {
            int64_t i = 0;
            for (; i + 4 <= n; i += 4) {
                if (packed)
                    tile_8_lanes<F, Vnni, 4, 1>(packed->rows(i), w, bias, y, g, h, i);
                else
                    tile_8_lanes<F, Vnni, 4, 1>(act_rows<4>(x, i, offset), w, bias, y, g, h, i);
            }
            if (i + 2 <= n)
                tile_8_lanes<F, Vnni, 2, 1>(act_rows<2>(x, i, offset), w, bias, y, g, h, i), i += 2;
            if (i < n) tile_8_lanes<F, Vnni, 1, 1>(act_rows<1>(x, i, offset), w, bias, y, g, h, i);
        }
    }
}

// The activation rows repacked for the largest tile of the kernel in use, if they were.
struct Packed {
    const PackedTiles<8>* eight = nullptr;  // AVX-512
    const PackedTiles<4>* four = nullptr;   // 8 lanes
};

void groups(Kernel k, const QuantizedActivations& x, Packed packed, const QuantizedWeights& w,
            const float* bias, float* y, int64_t g0, int64_t g1) {
    const bool q8 = w.format == QuantFormat::q8;
    if (k == Kernel::avx512_vnni && q8)
        groups_vnni<QuantFormat::q8>(x, packed.eight, w, bias, y, g0, g1);
    else if (k == Kernel::avx512_vnni)
        groups_vnni<QuantFormat::q4>(x, packed.eight, w, bias, y, g0, g1);
    else if (k == Kernel::avx2_vnni && q8)
        groups_8_lanes<QuantFormat::q8, true>(x, packed.four, w, bias, y, g0, g1);
    else if (k == Kernel::avx2_vnni)
        groups_8_lanes<QuantFormat::q4, true>(x, packed.four, w, bias, y, g0, g1);
    else if (q8)
        groups_8_lanes<QuantFormat::q8, false>(x, packed.four, w, bias, y, g0, g1);
    else
        groups_8_lanes<QuantFormat::q4, false>(x, packed.four, w, bias, y, g0, g1);
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
    out.sums.resize(size_t(blocks));
    quantize_blocks_avx512(x, blocks, out.q.data(), out.scales.data(), out.sums.data());
}

const char* linear_quant_cpu_kernel() {
    switch (active_kernel()) {
        case Kernel::avx512_vnni:
            return "avx512-vnni";
        case Kernel::avx2_vnni:
            return "avx2-vnni";
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
    int64_t total = 0;  // groups of 16 rows
    size_t bytes = 0;
    bool one_format = true;
    for (int j = 0; j < count; ++j) {
        QWEN3TTS_ASSERT(x.cols == ws[j]->cols);
        total += ws[j]->groups();
        bytes += ws[j]->nbytes();
        one_format = one_format && ws[j]->format == ws[0]->format;
    }
    const Kernel k = active_kernel();  // here, not in the workers: it may throw
    if (k == Kernel::generic) {
        for (int j = 0; j < count; ++j) linear_quant_reference(x, *ws[j], biases[j], ys[j]);
        return;
    }
    // Reused per thread, as the activations are (linear.cpp): no allocation once grown. A group
    // mixing formats (never made by the models) reads the rows as they are.
    thread_local PackedTiles<8> tiles8;
    thread_local PackedTiles<4> tiles4;
    Packed packed;
    if (one_format && k == Kernel::avx512_vnni && x.rows >= 8) {
        tiles8.pack(x, dot_offset(true, *ws[0]));
        packed.eight = &tiles8;
    } else if (one_format && k != Kernel::avx512_vnni && x.rows >= 4) {
        tiles4.pack(x, dot_offset(k == Kernel::avx2_vnni, *ws[0]));
        packed.four = &tiles4;
    }
    // [g0, g1) of the concatenated groups, mapped back to each matrix.
    auto body = [&](int64_t g0, int64_t g1) {
        int64_t offset = 0;
        for (int j = 0; j < count; ++j) {
            const int64_t b = std::max(g0, offset), e = std::min(g1, offset + ws[j]->groups());
            if (b < e) groups(k, x, packed, *ws[j], biases[j], ys[j], b - offset, e - offset);
            offset += ws[j]->groups();
        }
    };
    // Small layers are not worth waking the other threads for. Groups are split balanced (see
    // linear_cpu.cpp; a row's result does not depend on the split).
    if (pool && bytes * size_t(x.rows) >= (64u << 10))
        pool->parallel_for_balanced(total, 1, body);
    else
        body(0, total);
}

}  // namespace qwen3tts::backend
