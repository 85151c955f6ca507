#include "backend/cpu/linear_cpu.hpp"

#include <algorithm>
#include <vector>

#include "backend/cpu/cpu_features.hpp"
#include "backend/cpu/simd_targets.hpp"
#include "backend/reference/linear_ref.hpp"
#include "core/error.hpp"

namespace qwen3tts::backend {

namespace {

using cpu::Isa;

constexpr int kRowBlock = 4;

// A share of the 64-byte lines of a tile's rows `ahead` bytes further on, asked for while the
// tile computes.
struct RowPrefetch {
    size_t ahead = 0;   // bytes from a tile row to the row asked for; 0: no prefetch
    int64_t first = 0;  // the share: lines [first, first + count) of each row
    int64_t count = 0;
};

// Issues a RowPrefetch over a tile's `steps` k steps, evenly: one line (of each row) at the start
// of each chunk of chunk_steps() steps, so that the k loop runs chunk by chunk with no branch per
// step (a running-remainder test per step cost 5 % in cache, its branch mispredicted).
template <int NR>
class RowPrefetcher {
  public:
    RowPrefetcher(RowPrefetch p, int64_t steps)
        : p_(p),
          chunk_steps_(p.ahead && p.count > 0 ? std::max<int64_t>(1, steps / p.count) : steps),
          line_(p.ahead + size_t(p.first) * 64) {}
    int64_t chunk_steps() const { return chunk_steps_; }
    // At the start of a chunk. There are at least count chunks.
    void chunk(const uint8_t* const* rows) {
        if (issued_ >= p_.count || !p_.ahead) return;
#pragma GCC unroll 8
        for (int j = 0; j < NR; ++j)
            _mm_prefetch(reinterpret_cast<const char*>(rows[j]) + line_, _MM_HINT_T0);
        line_ += 64;
        ++issued_;
    }

  private:
    RowPrefetch p_;
    int64_t chunk_steps_;
    size_t line_;
    int64_t issued_ = 0;
};

// Pass p of `passes` over the same rows (tiles of several inputs) asks for its share of the
// next rows' lines, the p-th of `passes` equal parts, so that memory is busy through every
// pass; a single pass asks for none.
inline RowPrefetch next_rows_share(size_t row_bytes, int64_t p, int64_t passes) {
    if (passes < 2) return {};
    const int64_t lines = int64_t((row_bytes + 63) / 64);
    const int64_t first = lines * p / passes;
    return {row_bytes, first, lines * (p + 1) / passes - first};
}

// ---- AVX-512: 16 weights per step ----------------------------------------------------------

struct Avx512Bf16 {
    QWEN3TTS_AVX512 static __m512 load(const void* p, int64_t k) {
        const __m256i h = _mm256_loadu_si256(
            reinterpret_cast<const __m256i*>(static_cast<const uint16_t*>(p) + k));
        return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
    }
};
struct Avx512F16 {
    QWEN3TTS_AVX512 static __m512 load(const void* p, int64_t k) {
        return _mm512_cvtph_ps(_mm256_loadu_si256(
            reinterpret_cast<const __m256i*>(static_cast<const uint16_t*>(p) + k)));
    }
};
struct Avx512F32 {
    QWEN3TTS_AVX512 static __m512 load(const void* p, int64_t k) {
        return _mm512_loadu_ps(static_cast<const float*>(p) + k);
    }
};

// Weight rows r, r + row_step, .. r + (NR-1) row_step against input rows i0 .. i0+NX-1: each
// weight vector is loaded (and widened) once for the NX inputs. Every output keeps its own
// accumulator, summed over k in order and reduced by _mm512_reduce_add_ps, so its value does not
// depend on NR, NX, n or the thread split (batch invariance), and equals the one-row loop's bit for
// bit.
//
// `prefetch` asks for a share of the lines of the rows `ahead` bytes further on (the next
// block's rows, RowPrefetch): the hardware prefetchers ramp up too slowly on short row streams
// of 2-6 KiB (measured single-thread on a 64 MiB bf16 matrix, 4-row tiles went from 20 to 29
// GB/s at n = 1 and from 60 to 107 GFLOP/s at n = 8).
template <typename Load, int NR, int NX>
QWEN3TTS_AVX512 inline void tile_avx512(const float* x, int64_t in, const uint8_t* w,
                                        size_t row_bytes, const float* bias, float* y, int64_t out,
                                        int64_t r, int64_t i0, RowPrefetch prefetch,
                                        int64_t row_step = 1) {
    const uint8_t* wr[NR];
#pragma GCC unroll 8
    for (int j = 0; j < NR; ++j) wr[j] = w + size_t(r + j * row_step) * row_bytes;
    __m512 acc[NX][NR];
#pragma GCC unroll 8
    for (int c = 0; c < NX; ++c)
#pragma GCC unroll 8
        for (int j = 0; j < NR; ++j) acc[c][j] = _mm512_setzero_ps();
    RowPrefetcher<NR> prefetcher(prefetch, in / 16);
    const int64_t chunk = prefetcher.chunk_steps() * 16;
    for (int64_t k0 = 0; k0 < in; k0 += chunk) {
        prefetcher.chunk(wr);
        for (int64_t k = k0, k1 = std::min(in, k0 + chunk); k < k1; k += 16) {
            __m512 wv[NR];
#pragma GCC unroll 8
            for (int j = 0; j < NR; ++j) wv[j] = Load::load(wr[j], k);
#pragma GCC unroll 8
            for (int c = 0; c < NX; ++c) {
                __m512 xv = _mm512_loadu_ps(x + (i0 + c) * in + k);
                // Keep xv in a register: left to itself GCC folds the load into each FMA, and a
                // 3x8 tile then issues 27 loads per 24 FMAs instead of 11 (measured 2x slower).
                __asm__("" : "+v"(xv));
#pragma GCC unroll 8
                for (int j = 0; j < NR; ++j) acc[c][j] = _mm512_fmadd_ps(wv[j], xv, acc[c][j]);
            }
        }
    }
#pragma GCC unroll 8
    for (int c = 0; c < NX; ++c)
#pragma GCC unroll 8
        for (int j = 0; j < NR; ++j) {
            const int64_t row = r + j * row_step;
            y[(i0 + c) * out + row] = _mm512_reduce_add_ps(acc[c][j]) + (bias ? bias[row] : 0.0f);
        }
}

// The passes of tiles_of_four_rows over inputs i .. n-1: tiles of 4, then of 2, then 1.
inline int64_t four_row_passes(int64_t inputs) {
    return inputs / 4 + (inputs % 4) / 2 + inputs % 2;
}

// Weight rows r, r + row_step, r + 2 row_step, r + 3 row_step against input rows i .. n-1 in
// register tiles of 4, 2, 1 (up to 16 accumulators): the first pass reads the rows from
// memory, the later ones from cache. Every pass asks for its share of the next four rows
// (r + 1, ...) while it computes: the later passes make no misses of their own, so the hardware
// prefetchers would leave memory idle while they compute, and the whole next rows asked for by
// the later passes alone (the layout before) crowded L1 where a pass's inputs fill it (2048 or
// more columns: four inputs are 32 KiB). Zen 4, 2 threads, weights from memory, the two
// schedules alternating in one process, n = 8: 1024 x 2048 (rows x columns) 223 -> 189 us, 1024 x
// 3072 323 -> 277 us, 3072 x 1024 300 -> 296 us, 2048 x 1024 198 -> 197 us; n = 16: 1024 x 3072
// 549 -> 497 us, 2048 x 1024 345 -> 342 us. One pass (n <= 4) asks for nothing: there the
// prefetches cost 5-15 %.
template <typename Load>
QWEN3TTS_AVX512 void tiles_of_four_rows(const float* x, int64_t n, const uint8_t* w,
                                        size_t row_bytes, int64_t in, const float* bias, float* y,
                                        int64_t out, int64_t r, int64_t i, int64_t row_step) {
    const int64_t passes = four_row_passes(n - i);
    int64_t p = 0;
    for (; i + 4 <= n; i += 4, ++p)
        tile_avx512<Load, kRowBlock, 4>(x, in, w, row_bytes, bias, y, out, r, i,
                                        next_rows_share(row_bytes, p, passes), row_step);
    for (; i + 2 <= n; i += 2, ++p)
        tile_avx512<Load, kRowBlock, 2>(x, in, w, row_bytes, bias, y, out, r, i,
                                        next_rows_share(row_bytes, p, passes), row_step);
    for (; i < n; ++i, ++p)
        tile_avx512<Load, kRowBlock, 1>(x, in, w, row_bytes, bias, y, out, r, i,
                                        next_rows_share(row_bytes, p, passes), row_step);
}

// From 12 input rows on (16 streams, prefill), eight of them go through tiles of 3 weight
// rows x 8 inputs: 11 loads per 24 FMAs where 4x4 tiles need 8 per 16, which leaves the FMA
// units waiting on the load port once the work is compute-bound. Measured with 2 threads on
// 0.6B shapes (weights from DRAM, in-process A/B): n = 12 / 16 / 24 / 39 / 64 are 11-14 / 6-22
// / 15 / 6-9 / 8 % faster, but n = 8 alone is 5-9 % slower (there the rows stream from memory and
// the second 4x4 pass runs from L1 while the prefetches fly; no prefetch distance or hint tried
// helped the wide tile). Only while eight input rows stay in L1 beside the weights, in at most
// two thirds of it: on Zen 5 (48 KiB) at 1024 floats, not at 2048 or 3072, where their
// reloads from L2 made it 3 % slower; on Zen 4 (32 KiB) not even at 1024, where tiles of four
// rows a quarter apart (below) were faster at n = 16 (`bench_linear --shapes`, 2 threads, three
// rounds: q 0.6B 397-438 -> 331-368 us, gate 0.6B 594-671 -> 512-556, lm_head 417-464 ->
// 344-348) and in a prefill of 28 positions of the 0.6B (136-140 -> 126-130 ms).
constexpr int kWideRows = 3, kWideInputs = 8;
constexpr int64_t kWideMinN = 12;
constexpr int64_t kWideBlock = 12;  // rows: four wide tiles, or three tiles of four rows

bool wide_tiles_fit(int64_t in) {
    return kWideInputs * in * int64_t(sizeof(float)) <= cpu::l1d_bytes() * 2 / 3;
}

// Outside the wide tiles, a tile's four weight rows lie a quarter of the thread's rows apart:
// four sequential reads. Four or eight adjacent rows are as many streams 2-6 KiB apart, which
// the hardware prefetchers follow badly; one row at a time reads sequentially too, but its one
// chain of FMAs (in / 16 long) bounds it on the 3072-wide down projection. Zen 4, 2 threads,
// `bench_linear --shapes`, share of a plain read of the same bytes, adjacent 8-row (n = 1) or
// 4-row tiles -> rows a quarter apart (0.6B and 1.7B shapes, two rounds): n = 1 45-82 -> 91-100 %,
// n = 2 42-79 -> 87-99 %, n = 4 38-75 -> 76-80 %, n = 8 28-51 -> 50-58 %. `bench`, 0.6B bf16,
// alternating: talker 32-33.5 -> 18.3-21.6 and code predictor 86-90 -> 49-57 ms per frame; the
// step of 8 streams: talker 58-63 -> 47-53, code predictor 157-169 -> 127-146 ms.
//
// rows [r0, r1) of y for all n inputs; `in` must be a multiple of 16 (checked by the caller).
template <typename Load>
QWEN3TTS_AVX512 void rows_avx512(const float* x, int64_t n, const uint8_t* w, size_t row_bytes,
                                 int64_t in, const float* bias, float* y, int64_t out, int64_t r0,
                                 int64_t r1) {
    int64_t r = r0;
    if (n >= kWideMinN && wide_tiles_fit(in)) {
        for (; r + kWideBlock <= r1; r += kWideBlock) {
            // The first pass asks for all of the next block's rows.
            RowPrefetch prefetch;
            if (r + 2 * kWideBlock <= r1)
                prefetch = {kWideBlock * row_bytes, 0, int64_t((row_bytes + 63) / 64)};
            int64_t i = 0;
            for (; i + kWideInputs <= n; i += kWideInputs, prefetch = {})
                for (int64_t j = 0; j < kWideBlock; j += kWideRows)
                    tile_avx512<Load, kWideRows, kWideInputs>(x, in, w, row_bytes, bias, y, out,
                                                              r + j, i, prefetch);
            for (int64_t j = 0; j < kWideBlock; j += kRowBlock)
                tiles_of_four_rows<Load>(x, n, w, row_bytes, in, bias, y, out, r + j, i, 1);
        }
    }
    const int64_t quarter = (r1 - r) / kRowBlock;
    for (const int64_t end = r + quarter; r < end; ++r)
        tiles_of_four_rows<Load>(x, n, w, row_bytes, in, bias, y, out, r, 0, quarter);
    r += (kRowBlock - 1) * quarter;
    for (; r < r1; ++r)
        for (int64_t i = 0; i < n; ++i)
            tile_avx512<Load, 1, 1>(x, in, w, row_bytes, bias, y, out, r, i, {});
}

// ---- AVX512_BF16 on raw weights, bf16 inputs (opt-in) ------------------------------------

#define QWEN3TTS_AVX512_BF16 \
    __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,fma")))

// Rows of x rounded to bf16 (nearest even), 32 values per step.
QWEN3TTS_AVX512_BF16 void round_rows_bf16(const float* x, int64_t count, uint16_t* out) {
    for (int64_t k = 0; k < count; k += 32) {
        const __m512bh v = _mm512_cvtne2ps_pbh(_mm512_loadu_ps(x + k + 16), _mm512_loadu_ps(x + k));
        _mm512_storeu_si512(out + k, __m512i(v));
    }
}

// Weight rows r .. r+NR-1 against bf16 input rows i0 .. i0+NX-1; `in` a multiple of 32. Each
// output has its own accumulator over k in order: independent of NX, n and the threads.
template <int NR, int NX>
QWEN3TTS_AVX512_BF16 inline void tile_dpbf16(const uint16_t* xb, int64_t in,
                                             const uint16_t* const* w, const float* bias, float* y,
                                             int64_t out, int64_t r, int64_t i0) {
    __m512 acc[NX][NR];
#pragma GCC unroll 4
    for (int c = 0; c < NX; ++c)
#pragma GCC unroll 4
        for (int j = 0; j < NR; ++j) acc[c][j] = _mm512_setzero_ps();
    for (int64_t k = 0; k < in; k += 32) {
        __m512bh wv[NR];
#pragma GCC unroll 4
        for (int j = 0; j < NR; ++j) wv[j] = __m512bh(_mm512_loadu_si512(w[j] + k));
#pragma GCC unroll 4
        for (int c = 0; c < NX; ++c) {
            const __m512bh xv = __m512bh(_mm512_loadu_si512(xb + (i0 + c) * in + k));
#pragma GCC unroll 4
            for (int j = 0; j < NR; ++j) acc[c][j] = _mm512_dpbf16_ps(acc[c][j], wv[j], xv);
        }
    }
#pragma GCC unroll 4
    for (int c = 0; c < NX; ++c)
#pragma GCC unroll 4
        for (int j = 0; j < NR; ++j)
            y[(i0 + c) * out + r + j] =
                _mm512_reduce_add_ps(acc[c][j]) + (bias ? bias[r + j] : 0.0f);
}

template <int NR>
void rows_dpbf16_tiles(const uint16_t* xb, int64_t n, const uint16_t* const* w, int64_t in,
                       const float* bias, float* y, int64_t out, int64_t r) {
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) tile_dpbf16<NR, 4>(xb, in, w, bias, y, out, r, i);
    for (; i + 2 <= n; i += 2) tile_dpbf16<NR, 2>(xb, in, w, bias, y, out, r, i);
    for (; i < n; ++i) tile_dpbf16<NR, 1>(xb, in, w, bias, y, out, r, i);
}

void rows_dpbf16(const uint16_t* xb, int64_t n, const TensorView& wt, const float* bias, float* y,
                 int64_t r0, int64_t r1) {
    const int64_t out = wt.dim(0), in = wt.dim(1);
    const auto* base = static_cast<const uint16_t*>(wt.data);
    int64_t r = r0;
    for (; r + kRowBlock <= r1; r += kRowBlock) {
        const uint16_t* w[kRowBlock];
#pragma GCC unroll 4
        for (int j = 0; j < kRowBlock; ++j) w[j] = base + (r + j) * in;
        rows_dpbf16_tiles<kRowBlock>(xb, n, w, in, bias, y, out, r);
    }
    for (; r < r1; ++r) {
        const uint16_t* w[1] = {base + r * in};
        rows_dpbf16_tiles<1>(xb, n, w, in, bias, y, out, r);
    }
}

// ---- AVX2: 8 weights per step --------------------------------------------------------------

struct Avx2Bf16 {
    QWEN3TTS_AVX2 static __m256 load(const void* p, int64_t k) {
        const __m128i h =
            _mm_loadu_si128(reinterpret_cast<const __m128i*>(static_cast<const uint16_t*>(p) + k));
        return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
    }
};
struct Avx2F16 {
    QWEN3TTS_AVX2 static __m256 load(const void* p, int64_t k) {
        return _mm256_cvtph_ps(
            _mm_loadu_si128(reinterpret_cast<const __m128i*>(static_cast<const uint16_t*>(p) + k)));
    }
};
struct Avx2F32 {
    QWEN3TTS_AVX2 static __m256 load(const void* p, int64_t k) {
        return _mm256_loadu_ps(static_cast<const float*>(p) + k);
    }
};

// Weight rows r, r + row_step, .. against input rows i0 .. i0+NX-1, as tile_avx512 with 8 lanes:
// one accumulator per output, summed over k in order and reduced by hsum256, so every output equals
// the one-row loop's bit for bit whatever the tiling, n or the thread split. 16 ymm registers
// hold a 4x2 tile (8 accumulators, 4 weight vectors and an input vector).
template <typename Load, int NR, int NX>
QWEN3TTS_AVX2 inline void tile_avx2(const float* x, int64_t in, const uint8_t* w, size_t row_bytes,
                                    const float* bias, float* y, int64_t out, int64_t r, int64_t i0,
                                    int64_t row_step, RowPrefetch prefetch = {}) {
    const uint8_t* wr[NR];
#pragma GCC unroll 8
    for (int j = 0; j < NR; ++j) wr[j] = w + size_t(r + j * row_step) * row_bytes;
    __m256 acc[NX][NR];
#pragma GCC unroll 8
    for (int c = 0; c < NX; ++c)
#pragma GCC unroll 8
        for (int j = 0; j < NR; ++j) acc[c][j] = _mm256_setzero_ps();
    RowPrefetcher<NR> prefetcher(prefetch, in / 8);
    const int64_t chunk = prefetcher.chunk_steps() * 8;
    for (int64_t k0 = 0; k0 < in; k0 += chunk) {
        prefetcher.chunk(wr);
        for (int64_t k = k0, k1 = std::min(in, k0 + chunk); k < k1; k += 8) {
            if constexpr (NX == 1) {
                const __m256 xv = _mm256_loadu_ps(x + i0 * in + k);
#pragma GCC unroll 8
                for (int j = 0; j < NR; ++j)
                    acc[0][j] = _mm256_fmadd_ps(Load::load(wr[j], k), xv, acc[0][j]);
            } else {
                __m256 wv[NR];
#pragma GCC unroll 8
                for (int j = 0; j < NR; ++j) wv[j] = Load::load(wr[j], k);
#pragma GCC unroll 8
                for (int c = 0; c < NX; ++c) {
                    __m256 xv = _mm256_loadu_ps(x + (i0 + c) * in + k);
                    __asm__("" : "+x"(xv));  // one load per input row, as in tile_avx512
#pragma GCC unroll 8
                    for (int j = 0; j < NR; ++j) acc[c][j] = _mm256_fmadd_ps(wv[j], xv, acc[c][j]);
                }
            }
        }
    }
#pragma GCC unroll 8
    for (int c = 0; c < NX; ++c)
#pragma GCC unroll 8
        for (int j = 0; j < NR; ++j) {
            const int64_t row = r + j * row_step;
            y[(i0 + c) * out + row] = hsum256(acc[c][j]) + (bias ? bias[row] : 0.0f);
        }
}

// rows [r0, r1) of y for all n inputs; `in` must be a multiple of 8 (checked by the caller).
// Tiles of 4 weight rows a quarter of the rows apart (as rows_avx512) x 2 inputs, each weight
// vector widened once per two inputs. `bench`, 0.6B bf16, 2 threads, QWEN3TTS_ISA=avx2: Zen 5,
// adjacent rows against a loop whose accumulators went through memory: talker 54-57 -> 21-22,
// code predictor 148-155 -> 52-56 ms per frame, prefill of 17 positions 768-799 -> 179-188 ms;
// Zen 4, rows a quarter apart against adjacent 8-row tiles at n = 1: talker 33-35 -> 19-25,
// code predictor 89-93 -> 48-64 ms per frame. Each pass asks for its share of the next rows, as
// in tiles_of_four_rows (QWEN3TTS_ISA=avx2, Zen 4, 2 threads, in one process against the later
// passes asking for the whole next rows: n = 8, 1024 x 3072 (rows x columns) 405 -> 345 us,
// 1024 x 2048 327 -> 285, 2048 x 1024 234 -> 229; n = 16, 1024 x 2048 501 -> 438).
template <typename Load>
QWEN3TTS_AVX2 void rows_avx2(const float* x, int64_t n, const uint8_t* w, size_t row_bytes,
                             int64_t in, const float* bias, float* y, int64_t out, int64_t r0,
                             int64_t r1) {
    int64_t r = r0;
    const int64_t quarter = (r1 - r) / kRowBlock;
    const int64_t passes = n / 2 + n % 2;
    for (const int64_t end = r + quarter; r < end; ++r) {
        int64_t i = 0, p = 0;
        for (; i + 2 <= n; i += 2, ++p)
            tile_avx2<Load, kRowBlock, 2>(x, in, w, row_bytes, bias, y, out, r, i, quarter,
                                          next_rows_share(row_bytes, p, passes));
        for (; i < n; ++i, ++p)
            tile_avx2<Load, kRowBlock, 1>(x, in, w, row_bytes, bias, y, out, r, i, quarter,
                                          next_rows_share(row_bytes, p, passes));
    }
    r += (kRowBlock - 1) * quarter;
    for (; r < r1; ++r)
        for (int64_t i = 0; i < n; ++i)
            tile_avx2<Load, 1, 1>(x, in, w, row_bytes, bias, y, out, r, i, 1);
}

}  // namespace

const char* linear_cpu_isa() {
    return cpu::isa_name(cpu::active_isa());
}

namespace {

bool simd_ok(Isa isa, const TensorView& w) {
    const int64_t lanes = isa == Isa::avx512 ? 16 : 8;
    return isa != Isa::generic && w.dim(1) % lanes == 0 &&
           (w.dtype == DType::bf16 || w.dtype == DType::f16 || w.dtype == DType::f32);
}

// Output rows [r0, r1) of one weight matrix; `isa` is avx2 or avx512 (see simd_ok).
void rows(Isa isa, const float* x, int64_t n, const TensorView& w, const float* bias, float* y,
          int64_t r0, int64_t r1) {
    const int64_t out = w.dim(0), in = w.dim(1);
    const auto* base = static_cast<const uint8_t*>(w.data);
    const size_t row_bytes = size_t(in) * dtype_size(w.dtype);
    if (isa == Isa::avx512) {
        switch (w.dtype) {
            case DType::bf16:
                rows_avx512<Avx512Bf16>(x, n, base, row_bytes, in, bias, y, out, r0, r1);
                break;
            case DType::f16:
                rows_avx512<Avx512F16>(x, n, base, row_bytes, in, bias, y, out, r0, r1);
                break;
            default:
                rows_avx512<Avx512F32>(x, n, base, row_bytes, in, bias, y, out, r0, r1);
                break;
        }
    } else {
        switch (w.dtype) {
            case DType::bf16:
                rows_avx2<Avx2Bf16>(x, n, base, row_bytes, in, bias, y, out, r0, r1);
                break;
            case DType::f16:
                rows_avx2<Avx2F16>(x, n, base, row_bytes, in, bias, y, out, r0, r1);
                break;
            default:
                rows_avx2<Avx2F32>(x, n, base, row_bytes, in, bias, y, out, r0, r1);
                break;
        }
    }
}

// Small layers are not worth waking the other threads for. Rows are split balanced: a decode
// step is hundreds of regions, and with a static split each waits for a thread whose core
// is busy with another process (a row's result does not depend on the split).
bool worth_threads(ThreadPool* pool, size_t bytes, int64_t n) {
    return pool && bytes * size_t(n) >= (64u << 10);
}

}  // namespace

void linear_cpu(ThreadPool* pool, const float* x, int64_t n, const TensorView& w, const float* bias,
                float* y) {
    const Isa isa = cpu::active_isa();  // here, not in the workers: it may throw
    if (!simd_ok(isa, w)) {
        linear_reference(x, n, w, bias, y);
        return;
    }
    const int64_t out = w.dim(0);
    auto body = [&](int64_t r0, int64_t r1) { rows(isa, x, n, w, bias, y, r0, r1); };
    if (worth_threads(pool, w.nbytes(), n))
        pool->parallel_for_balanced(out, 16, body);
    else
        body(0, out);
}

bool linear_cpu_bf16_dot(ThreadPool* pool, const float* x, int64_t n, const TensorView* const* ws,
                         const float* const* biases, float* const* ys, int count) {
    static const bool cpu_has = __builtin_cpu_supports("avx512bf16");
    if (!cpu_has || cpu::active_isa() != Isa::avx512) return false;
    const int64_t in = ws[0]->dim(1);
    int64_t total = 0;
    size_t bytes = 0;
    for (int j = 0; j < count; ++j) {
        if (ws[j]->dtype != DType::bf16 || ws[j]->dim(1) != in || in % 32 != 0) return false;
        total += ws[j]->dim(0);
        bytes += ws[j]->nbytes();
    }
    // Grows to the largest input seen, then stays (a linear never runs inside another on the
    // same thread).
    thread_local std::vector<uint16_t> xb;
    if (xb.size() < size_t(n * in)) xb.resize(size_t(n * in));
    round_rows_bf16(x, n * in, xb.data());
    const uint16_t* xbp = xb.data();
    auto body = [&](int64_t r0, int64_t r1) {
        int64_t offset = 0;
        for (int j = 0; j < count; ++j) {
            const int64_t out = ws[j]->dim(0);
            const int64_t b = std::max(r0, offset), e = std::min(r1, offset + out);
            if (b < e) rows_dpbf16(xbp, n, *ws[j], biases[j], ys[j], b - offset, e - offset);
            offset += out;
        }
    };
    if (worth_threads(pool, bytes, n))
        pool->parallel_for_balanced(total, 16, body);
    else
        body(0, total);
    return true;
}

void linear_cpu_group(ThreadPool* pool, const float* x, int64_t n, const TensorView* const* ws,
                      float* const* ys, int count) {
    const Isa isa = cpu::active_isa();
    int64_t total = 0;
    size_t bytes = 0;
    for (int j = 0; j < count; ++j) {
        if (!simd_ok(isa, *ws[j])) {
            for (int k = 0; k < count; ++k) linear_cpu(pool, x, n, *ws[k], nullptr, ys[k]);
            return;
        }
        total += ws[j]->dim(0);
        bytes += ws[j]->nbytes();
    }
    // [r0, r1) of the concatenated output rows, mapped back to each matrix.
    auto body = [&](int64_t r0, int64_t r1) {
        int64_t offset = 0;
        for (int j = 0; j < count; ++j) {
            const int64_t out = ws[j]->dim(0);
            const int64_t b = std::max(r0, offset), e = std::min(r1, offset + out);
            if (b < e) rows(isa, x, n, *ws[j], nullptr, ys[j], b - offset, e - offset);
            offset += out;
        }
    };
    if (worth_threads(pool, bytes, n))
        pool->parallel_for_balanced(total, 16, body);
    else
        body(0, total);
}

}  // namespace qwen3tts::backend
