#include "backend/cpu/conv_gemm.hpp"

#include <immintrin.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "backend/cpu/cpu_features.hpp"
#include "backend/cpu/simd_targets.hpp"
#include "core/dtype.hpp"
#include "core/error.hpp"
#include "core/thread_pool.hpp"

namespace qwen3tts::cpu {

namespace {

// Arguments shared by every micro-kernel call: an mr x kPanel tile of y.
// The reduction (taps x input channels) is cut into blocks of <= kKc channels of one tap, so
// the panel slice a tile streams (kKc x kPanel floats) stays in L1 across the row tiles of a
// row block. The first block starts from bias (+ y when accumulating), later ones from y.
struct Tile {
    const float* x;  // input row of the tile's first output row, at this block's tap/channel
    int64_t ldx;
    int kc;              // input channels in this reduction block
    const float* panel;  // this block's slice: [kc][kPanel]
    const float* bias;   // kPanel values (zero-padded) or nullptr; used when `first`
    float* y;
    int64_t ldy;
    bool first;  // first reduction block: start from bias (+ y if accumulate)
    bool accumulate;
    int n_col;  // valid columns of this panel (<= kPanel)
};

// ---- AVX-512: MR rows x 32 columns in 2*MR zmm accumulators -------------------------------

template <int MR>
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"))) void tile_avx512(const Tile& a) {
    const __mmask16 m0 = a.n_col >= 16 ? __mmask16(0xffff) : __mmask16((1u << a.n_col) - 1);
    const __mmask16 m1 = a.n_col >= 32   ? __mmask16(0xffff)
                         : a.n_col <= 16 ? 0
                                         : __mmask16((1u << (a.n_col - 16)) - 1);
    __m512 c0[MR], c1[MR];
    if (a.first) {
        const __m512 bias0 = a.bias ? _mm512_loadu_ps(a.bias) : _mm512_setzero_ps();
        const __m512 bias1 = a.bias ? _mm512_loadu_ps(a.bias + 16) : _mm512_setzero_ps();
#pragma GCC unroll 16
        for (int r = 0; r < MR; ++r) {
            c0[r] = bias0;
            c1[r] = bias1;
            if (a.accumulate) {
                c0[r] = _mm512_add_ps(c0[r], _mm512_maskz_loadu_ps(m0, a.y + r * a.ldy));
                c1[r] = _mm512_add_ps(c1[r], _mm512_maskz_loadu_ps(m1, a.y + r * a.ldy + 16));
            }
        }
    } else {
#pragma GCC unroll 16
        for (int r = 0; r < MR; ++r) {
            c0[r] = _mm512_maskz_loadu_ps(m0, a.y + r * a.ldy);
            c1[r] = _mm512_maskz_loadu_ps(m1, a.y + r * a.ldy + 16);
        }
    }
    const float* bp = a.panel;
    const float* xp = a.x;
    for (int i = 0; i < a.kc; ++i, bp += kPanel, ++xp) {
        const __m512 b0 = _mm512_loadu_ps(bp);
        const __m512 b1 = _mm512_loadu_ps(bp + 16);
#pragma GCC unroll 16
        for (int r = 0; r < MR; ++r) {
            const __m512 v = _mm512_set1_ps(xp[r * a.ldx]);
            c0[r] = _mm512_fmadd_ps(v, b0, c0[r]);
            c1[r] = _mm512_fmadd_ps(v, b1, c1[r]);
        }
    }
#pragma GCC unroll 16
    for (int r = 0; r < MR; ++r) {
        _mm512_mask_storeu_ps(a.y + r * a.ldy, m0, c0[r]);
        _mm512_mask_storeu_ps(a.y + r * a.ldy + 16, m1, c1[r]);
    }
}

// Rows [r0, r1) of a conv with few outputs: one dot product over taps x channels per output.
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"))) void narrow_rows_avx512(
    const PackedConv& w, const float* x, int64_t ldx, int64_t r0, int64_t r1, float* y, int64_t ldy,
    bool accumulate) {
    const int n_full = w.c_in / 16 * 16;
    const __mmask16 tail = __mmask16((1u << (w.c_in - n_full)) - 1);
    for (int64_t t = r0; t < r1; ++t)
        for (int o = 0; o < w.c_out; ++o) {
            __m512 acc = _mm512_setzero_ps();
            for (int j = 0; j < w.n_tap; ++j) {
                const float* xr = x + (t + int64_t(j) * w.dilation) * ldx;
                const float* wr = w.narrow.data() + (size_t(o) * w.n_tap + j) * w.c_in;
                int i = 0;
                for (; i < n_full; i += 16)
                    acc = _mm512_fmadd_ps(_mm512_loadu_ps(xr + i), _mm512_loadu_ps(wr + i), acc);
                if (tail)
                    acc = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(tail, xr + i),
                                          _mm512_maskz_loadu_ps(tail, wr + i), acc);
            }
            float v = _mm512_reduce_add_ps(acc) + (w.bias.empty() ? 0.0f : w.bias[size_t(o)]);
            if (accumulate) v += y[t * ldy + o];
            y[t * ldy + o] = v;
        }
}

// ---- AVX2 + FMA: MR rows x 32 columns in 4*MR ymm accumulators -----------------------------

template <int MR>
__attribute__((target("avx2,fma"))) void tile_avx2(const Tile& a) {
    // Lane masks of the panel's valid columns (maskload/maskstore), as tile_avx512's.
    __m256i mask[4];
#pragma GCC unroll 4
    for (int q = 0; q < 4; ++q)
        mask[q] = _mm256_cmpgt_epi32(_mm256_set1_epi32(a.n_col - 8 * q),
                                     _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    __m256 c[MR][4];
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r)
#pragma GCC unroll 4
        for (int q = 0; q < 4; ++q) {
            const __m256 y = _mm256_maskload_ps(a.y + r * a.ldy + 8 * q, mask[q]);
            if (!a.first) {
                c[r][q] = y;
                continue;
            }
            c[r][q] = a.bias ? _mm256_loadu_ps(a.bias + 8 * q) : _mm256_setzero_ps();
            if (a.accumulate) c[r][q] = _mm256_add_ps(c[r][q], y);
        }
    const float* bp = a.panel;
    const float* xp = a.x;
    for (int i = 0; i < a.kc; ++i, bp += kPanel, ++xp) {
#pragma GCC unroll 8
        for (int r = 0; r < MR; ++r) {
            const __m256 v = _mm256_broadcast_ss(xp + r * a.ldx);
            c[r][0] = _mm256_fmadd_ps(v, _mm256_loadu_ps(bp), c[r][0]);
            c[r][1] = _mm256_fmadd_ps(v, _mm256_loadu_ps(bp + 8), c[r][1]);
            c[r][2] = _mm256_fmadd_ps(v, _mm256_loadu_ps(bp + 16), c[r][2]);
            c[r][3] = _mm256_fmadd_ps(v, _mm256_loadu_ps(bp + 24), c[r][3]);
        }
    }
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r)
#pragma GCC unroll 4
        for (int q = 0; q < 4; ++q) _mm256_maskstore_ps(a.y + r * a.ldy + 8 * q, mask[q], c[r][q]);
}

// ---- Portable fallback ---------------------------------------------------------------------

// Start value of output element (r, o) of a tile: bias (+ y) for the first block, else y.
inline float tile_start(const Tile& a, int r, int o) {
    const float y = a.y[r * a.ldy + o];
    if (!a.first) return y;
    const float b = a.bias ? a.bias[o] : 0.0f;
    return a.accumulate ? b + y : b;
}

template <int MR>
void tile_generic(const Tile& a) {
    float c[MR][kPanel] = {};
    for (int r = 0; r < MR; ++r)
        for (int o = 0; o < a.n_col; ++o) c[r][o] = tile_start(a, r, o);
    const float* bp = a.panel;
    for (int i = 0; i < a.kc; ++i, bp += kPanel)
        for (int r = 0; r < MR; ++r) {
            const float v = a.x[r * a.ldx + i];
            for (int o = 0; o < kPanel; ++o) c[r][o] += v * bp[o];
        }
    for (int r = 0; r < MR; ++r)
        for (int o = 0; o < a.n_col; ++o) a.y[r * a.ldy + o] = c[r][o];
}

using TileFn = void (*)(const Tile&);

#define QWEN3TTS_TILE_TABLE(fn, max_mr)                                                            \
    template <int... R>                                                                            \
    constexpr std::array<TileFn, sizeof...(R)> fn##_table_impl(std::integer_sequence<int, R...>) { \
        return {&fn<R + 1>...};                                                                    \
    }                                                                                              \
    const std::array<TileFn, max_mr> fn##_table =                                                  \
        fn##_table_impl(std::make_integer_sequence<int, max_mr>());

constexpr int kMrAvx512 = 12;
constexpr int kMrAvx2 = 3;
constexpr int kMrGeneric = 4;
// Input channels per reduction block: a 128 x 32 panel slice is 16 KiB (L1 holds it).
constexpr int kKc = 128;

QWEN3TTS_TILE_TABLE(tile_avx512, kMrAvx512)
QWEN3TTS_TILE_TABLE(tile_avx2, kMrAvx2)
QWEN3TTS_TILE_TABLE(tile_generic, kMrGeneric)

#undef QWEN3TTS_TILE_TABLE

// The panel micro-kernels of one ISA: table[r - 1] computes a tile of r <= mr rows.
struct TileKernels {
    int mr;
    const TileFn* table;
};

TileKernels tile_kernels(Isa isa) {
    if (isa == Isa::avx512) return {kMrAvx512, tile_avx512_table.data()};
    if (isa == Isa::avx2) return {kMrAvx2, tile_avx2_table.data()};
    return {kMrGeneric, tile_generic_table.data()};
}

// One reduction block (t.kc channels of t.panel, t.first as set) over n_rows rows: input row r
// at x + r·t.ldx, its kPanel sums at acc + r·kPanel.
void reduce_rows(const TileKernels& k, Tile& t, const float* x, int64_t n_rows, float* acc) {
    for (int64_t r = 0; r < n_rows; r += k.mr) {
        t.x = x + r * t.ldx;
        t.y = acc + r * kPanel;
        k.table[std::min<int64_t>(k.mr, n_rows - r) - 1](t);
    }
}

void check_pack_args(int c_out, int c_in, int n_tap, int dilation) {
    if (c_out <= 0 || c_in <= 0 || n_tap <= 0 || dilation <= 0)
        throw Error(ErrorCode::invalid_argument,
                    "conv pack: bad shape c_out=" + std::to_string(c_out) +
                        " c_in=" + std::to_string(c_in) + " n_tap=" + std::to_string(n_tap) +
                        " dilation=" + std::to_string(dilation));
}

// Packs taps given by `tap_weight(o, i, j)`.
template <class F>
PackedConv pack_impl(int c_out, int c_in, int n_tap, int dilation, const float* bias,
                     F tap_weight) {
    check_pack_args(c_out, c_in, n_tap, dilation);
    PackedConv p;
    p.c_out = c_out;
    p.c_in = c_in;
    p.n_tap = n_tap;
    p.dilation = dilation;
    const int n_panel = p.n_panel();
    p.panels = HugeBuffer<float>(size_t(n_panel) * n_tap * c_in * kPanel);
    qwen3tts::detail::populate_for_write(p.panels.data(), p.panels.size() * sizeof(float));
    for (int pi = 0; pi < n_panel; ++pi)
        for (int j = 0; j < n_tap; ++j)
            for (int i = 0; i < c_in; ++i) {
                float* dst = p.panels.data() + ((size_t(pi) * n_tap + j) * c_in + i) * kPanel;
                for (int q = 0; q < kPanel; ++q) {
                    const int o = pi * kPanel + q;
                    dst[q] = o < c_out ? tap_weight(o, i, j) : 0.0f;
                }
            }
    if (c_out <= kNarrowOut) {
        p.narrow.resize(size_t(c_out) * n_tap * c_in);
        for (int o = 0; o < c_out; ++o)
            for (int j = 0; j < n_tap; ++j)
                for (int i = 0; i < c_in; ++i)
                    p.narrow[(size_t(o) * n_tap + j) * c_in + i] = tap_weight(o, i, j);
    }
    if (bias) {
        p.bias.assign(size_t(n_panel) * kPanel, 0.0f);
        std::memcpy(p.bias.data(), bias, sizeof(float) * size_t(c_out));
    }
    return p;
}

// Element i of a tensor's bytes as f32, one type per stored dtype (memcpy: the bytes of a
// mapped checkpoint need not be aligned).
struct F32Element {
    static float at(const unsigned char* p, size_t i) {
        float v;
        std::memcpy(&v, p + i * sizeof v, sizeof v);
        return v;
    }
};
struct Bf16Element {
    static float at(const unsigned char* p, size_t i) {
        uint16_t h;
        std::memcpy(&h, p + i * sizeof h, sizeof h);
        return bf16_to_f32(h);
    }
};
struct F16Element {
    static float at(const unsigned char* p, size_t i) {
        uint16_t h;
        std::memcpy(&h, p + i * sizeof h, sizeof h);
        return f16_to_f32(h);
    }
};

// pack(element) with the element type of t's dtype.
template <class F>
PackedConv with_element_type(const TensorView& t, F&& pack) {
    switch (t.dtype) {
        case DType::f32:
            return pack(F32Element{});
        case DType::bf16:
            return pack(Bf16Element{});
        case DType::f16:
            return pack(F16Element{});
        default:
            throw Error(ErrorCode::model, "tensor " + t.name + ": dtype " + dtype_name(t.dtype) +
                                              " is not a float type (F32/BF16/F16)");
    }
}

TensorView f32_view(const float* w) {
    TensorView t;
    t.dtype = DType::f32;
    t.data = w;
    return t;
}

const unsigned char* bytes_of(const TensorView& t) {
    return static_cast<const unsigned char*>(t.data);
}

}  // namespace

PackedConv pack_conv1d(const float* w, int c_out, int c_in, int n_tap, int dilation,
                       const float* bias) {
    return pack_conv1d(f32_view(w), c_out, c_in, n_tap, dilation, bias);
}

PackedConv pack_conv1d(const TensorView& w, int c_out, int c_in, int n_tap, int dilation,
                       const float* bias) {
    const unsigned char* p = bytes_of(w);
    return with_element_type(w, [&](auto element) {
        using E = decltype(element);
        return pack_impl(c_out, c_in, n_tap, dilation, bias, [&](int o, int i, int j) {
            return E::at(p, (size_t(o) * c_in + i) * n_tap + j);
        });
    });
}

PackedConv pack_linear(const float* w, int out, int in, const float* bias) {
    return pack_impl(out, in, 1, 1, bias, [&](int o, int i, int) { return w[size_t(o) * in + i]; });
}

PackedConv pack_stacked_linear(const TensorView* const* parts, int n_parts, int in,
                               const float* bias) {
    // Part k holds the outputs [first[k], first[k + 1]).
    std::vector<int> first{0};
    std::vector<const unsigned char*> data;
    for (int k = 0; k < n_parts; ++k) {
        const TensorView& t = *parts[k];
        if (t.dtype != parts[0]->dtype)
            throw Error(ErrorCode::model, "tensors " + parts[0]->name + " and " + t.name +
                                              " are packed together but have different dtypes (" +
                                              dtype_name(parts[0]->dtype) + ", " +
                                              dtype_name(t.dtype) + ")");
        first.push_back(first.back() + int(t.dim(0)));
        data.push_back(bytes_of(t));
    }
    return with_element_type(*parts[0], [&](auto element) {
        using E = decltype(element);
        return pack_impl(first.back(), in, 1, 1, bias, [&](int o, int i, int) {
            int k = 0;
            while (o >= first[size_t(k) + 1]) ++k;
            return E::at(data[size_t(k)], size_t(o - first[size_t(k)]) * in + i);
        });
    });
}

PackedConv pack_conv_transpose1d(const float* w, int c_in, int c_out, int kernel, int stride,
                                 const float* bias) {
    return pack_conv_transpose1d(f32_view(w), c_in, c_out, kernel, stride, bias);
}

PackedConv pack_conv_transpose1d(const TensorView& w, int c_in, int c_out, int kernel, int stride,
                                 const float* bias) {
    if (stride <= 0 || kernel % stride != 0 || c_out <= 0 || c_out > (1 << 30) / stride)
        throw Error(ErrorCode::invalid_argument,
                    "conv_transpose1d pack: kernel " + std::to_string(kernel) +
                        " must be a multiple of stride " + std::to_string(stride) + " (c_out " +
                        std::to_string(c_out) + ")");
    const int m = kernel / stride;
    std::vector<float> phase_bias;
    if (bias)
        for (int r = 0; r < stride; ++r) phase_bias.insert(phase_bias.end(), bias, bias + c_out);
    const unsigned char* p = bytes_of(w);
    return with_element_type(w, [&](auto element) {
        using E = decltype(element);
        return pack_impl(stride * c_out, c_in, m, 1, bias ? phase_bias.data() : nullptr,
                         [&](int q, int i, int j) {
                             const int r = q / c_out, o = q % c_out;
                             const int k = r + (m - 1 - j) * stride;
                             return E::at(p, (size_t(i) * c_out + o) * kernel + k);
                         });
    });
}

PackedConv pack_strided_conv1d(const TensorView& w, int c_out, int c_in, int kernel, int stride,
                               const float* bias) {
    if (stride <= 0 || kernel < stride || kernel % stride != 0 || c_in <= 0 ||
        c_in > (1 << 30) / stride)
        throw Error(ErrorCode::invalid_argument,
                    "strided conv pack: kernel " + std::to_string(kernel) +
                        " must be a multiple of stride " + std::to_string(stride) + " (c_in " +
                        std::to_string(c_in) + ")");
    const unsigned char* p = bytes_of(w);
    return with_element_type(w, [&](auto element) {
        using E = decltype(element);
        return pack_impl(c_out, stride * c_in, kernel / stride, 1, bias, [&](int o, int q, int b) {
            const int r = q / c_in, i = q % c_in;
            return E::at(p, (size_t(o) * c_in + i) * kernel + size_t(b) * stride + r);
        });
    });
}

namespace {

// Calls run(item) for every item in [0, n_item), over the pool when the call is big enough.
template <class F>
void run_items(const PackedConv& w, int64_t n_rows, int64_t n_item, ThreadPool* pool,
               const F& run) {
    // Below ~50k multiply-adds a fork/join costs more than it saves.
    detail::for_each_item(n_item, w.flops(n_rows) > 1e5, pool, run);
}

// n_col floats of one row of a panel; whole panels (nearly all) as a fixed-size copy that the
// compiler inlines: a library call per 128-byte row was 2 % of a batched decode.
inline void copy_panel_row(float* dst, const float* src, int n_col) {
    if (n_col == kPanel)
        std::memcpy(dst, src, kPanel * sizeof(float));
    else
        std::memcpy(dst, src, size_t(n_col) * sizeof(float));
}

}  // namespace

namespace detail {

void panel_product(const float* x, int64_t ldx, int64_t n_rows, int c_in, const float* panel,
                   float* acc) {
    const TileKernels kernels = tile_kernels(active_isa());
    Tile t{};
    t.ldx = ldx;
    t.ldy = kPanel;
    t.n_col = kPanel;
    for (int i0 = 0; i0 < c_in; i0 += kKc) {
        t.kc = std::min(kKc, c_in - i0);
        t.panel = panel + size_t(i0) * kPanel;
        t.first = i0 == 0;
        reduce_rows(kernels, t, x + i0, n_rows, acc);
    }
}

}  // namespace detail

void conv1d_gemm(const PackedConv& w, const float* x, int64_t ldx, int64_t n_rows, float* y,
                 int64_t ldy, bool accumulate, ThreadPool* pool) {
    const ConvRows part{x, ldx, n_rows, y, ldy};
    conv1d_gemm_parts(w, &part, 1, accumulate, pool);
}

void conv1d_gemm_parts(const PackedConv& w, const ConvRows* parts, int n_parts, bool accumulate,
                       ThreadPool* pool) {
    // Part bookkeeping lives on the stack (the codec calls this per layer per step: no
    // allocation); larger batches go in groups.
    constexpr int kMaxParts = 64;
    if (n_parts > kMaxParts) {
        for (int s = 0; s < n_parts; s += kMaxParts)
            conv1d_gemm_parts(w, parts + s, std::min(kMaxParts, n_parts - s), accumulate, pool);
        return;
    }
    int64_t total_rows = 0;
    for (int s = 0; s < n_parts; ++s) total_rows += std::max<int64_t>(parts[s].n_rows, 0);
    if (total_rows == 0) return;
    const Isa isa = active_isa();
    const bool narrow = isa == Isa::avx512 && !w.narrow.empty();
    const TileKernels kernels = tile_kernels(isa);
    const int mr = kernels.mr;
    // Row blocks: for the narrow kernel 256 rows per work item; for the panel kernels up to 40
    // tiles, so that a block's input rows for one reduction block (<= 480 x 128 floats) stay in
    // L2 and each L1-resident weight slice is reused over all of them. Short inputs (the
    // 12.5-400 Hz stages, whose weights are large) are one block, so each weight is read once
    // per call.
    const int64_t row_block = narrow ? 256 : int64_t(mr) * (480 / mr);
    int64_t first_block[kMaxParts + 1];  // row blocks of parts [0, s)
    first_block[0] = 0;
    for (int s = 0; s < n_parts; ++s)
        first_block[s + 1] =
            first_block[s] + (std::max<int64_t>(parts[s].n_rows, 0) + row_block - 1) / row_block;
    const int64_t n_block = first_block[n_parts];
    // Block index → its part and rows.
    auto block_rows = [&](int64_t bi, int64_t& begin, int64_t& end) -> const ConvRows& {
        int s = 0;
        while (first_block[s + 1] <= bi) ++s;
        begin = (bi - first_block[s]) * row_block;
        end = std::min(parts[s].n_rows, begin + row_block);
        return parts[s];
    };
    if (narrow) {
        run_items(w, total_rows, n_block, pool, [&](int64_t item) {
            int64_t begin, end;
            const ConvRows& p = block_rows(item, begin, end);
            narrow_rows_avx512(w, p.x, p.ldx, begin, end, p.y, p.ldy, accumulate);
        });
        return;
    }
    const int n_panel = w.n_panel();
    const size_t panel_size = size_t(w.n_tap) * w.c_in * kPanel;
    run_items(w, total_rows, n_block * n_panel, pool, [&](int64_t item) {
        // One part: block-major, so a block's input rows are reused over all panels. Several
        // parts (a batch of codec streams, whose low-rate stages have large weights and few
        // rows): panel-major, so a panel is reused over every part's rows while in cache.
        const int64_t bi = n_parts == 1 ? item / n_panel : item % n_block;
        const int p = int(n_parts == 1 ? item % n_panel : item / n_block);
        int64_t begin, end;
        const ConvRows& part = block_rows(bi, begin, end);
        Tile t{};
        t.ldx = part.ldx;
        t.ldy = kPanel;
        t.accumulate = accumulate;
        const float* panel = w.panels.data() + size_t(p) * panel_size;
        t.bias = w.bias.empty() ? nullptr : w.bias.data() + size_t(p) * kPanel;
        t.n_col = std::min(kPanel, w.c_out - p * kPanel);
        // The item's outputs are summed over the reduction blocks in a cache-line-aligned buffer
        // of this thread and written to y once: y's rows are shared with the items of the other
        // panels, which another thread may be computing, and y is rarely 64-byte aligned, so
        // summing in place bounced the lines at each panel's edges between the cores at every
        // reduction block (two threads took ~30 % more CPU time than one for the same decode).
        float* acc = detail::thread_scratch<detail::kItemScratch>(size_t(end - begin) * kPanel);
        float* y = part.y + int64_t(p) * kPanel;
        if (accumulate)
            for (int64_t r = begin; r < end; ++r)
                copy_panel_row(acc + (r - begin) * kPanel, y + r * part.ldy, t.n_col);
        for (int j = 0; j < w.n_tap; ++j)
            for (int i0 = 0; i0 < w.c_in; i0 += kKc) {
                t.kc = std::min(kKc, w.c_in - i0);
                t.panel = panel + (size_t(j) * w.c_in + size_t(i0)) * kPanel;
                t.first = j == 0 && i0 == 0;
                const float* xb = part.x + (int64_t(j) * w.dilation + begin) * part.ldx + i0;
                reduce_rows(kernels, t, xb, end - begin, acc);
            }
        for (int64_t r = begin; r < end; ++r)
            copy_panel_row(y + r * part.ldy, acc + (r - begin) * kPanel, t.n_col);
    });
}

const char* conv_gemm_isa() {
    return isa_name(active_isa());
}

}  // namespace qwen3tts::cpu
