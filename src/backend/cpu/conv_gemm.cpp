#include "backend/cpu/conv_gemm.hpp"

#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <utility>

#include "core/error.hpp"
#include "core/thread_pool.hpp"

namespace qwen3tts::cpu {

namespace {

enum class Isa { generic, avx2, avx512 };

Isa detect_isa() {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq"))
        return Isa::avx512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return Isa::avx2;
    return Isa::generic;
}

Isa& forced_isa() {
    static Isa isa = detect_isa();
    return isa;
}

// Arguments shared by every micro-kernel call: an mr x kPanel tile of y.
struct Tile {
    const float* x;      // first history row of the tile's first output row
    int64_t ldx;
    int64_t tap_step;    // dilation * ldx
    int n_tap;
    int c_in;
    const float* panel;  // [n_tap][c_in][kPanel]
    const float* bias;   // kPanel values (zero-padded) or nullptr
    float* y;
    int64_t ldy;
    bool accumulate;
    int n_col;           // valid columns of this panel (<= kPanel)
};

// ---- AVX-512: MR rows x 32 columns in 2*MR zmm accumulators -------------------------------

template <int MR>
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"))) void tile_avx512(const Tile& a) {
    __m512 c0[MR], c1[MR];
#pragma GCC unroll 16
    for (int r = 0; r < MR; ++r) c0[r] = c1[r] = _mm512_setzero_ps();
    const float* bp = a.panel;
    for (int j = 0; j < a.n_tap; ++j) {
        const float* xj = a.x + j * a.tap_step;
        for (int i = 0; i < a.c_in; ++i, bp += kPanel) {
            const __m512 b0 = _mm512_loadu_ps(bp);
            const __m512 b1 = _mm512_loadu_ps(bp + 16);
#pragma GCC unroll 16
            for (int r = 0; r < MR; ++r) {
                const __m512 v = _mm512_set1_ps(xj[r * a.ldx + i]);
                c0[r] = _mm512_fmadd_ps(v, b0, c0[r]);
                c1[r] = _mm512_fmadd_ps(v, b1, c1[r]);
            }
        }
    }
    const __mmask16 m0 = a.n_col >= 16 ? __mmask16(0xffff) : __mmask16((1u << a.n_col) - 1);
    const __mmask16 m1 =
        a.n_col >= 32 ? __mmask16(0xffff) : a.n_col <= 16 ? 0 : __mmask16((1u << (a.n_col - 16)) - 1);
    const __m512 bias0 = a.bias ? _mm512_loadu_ps(a.bias) : _mm512_setzero_ps();
    const __m512 bias1 = a.bias ? _mm512_loadu_ps(a.bias + 16) : _mm512_setzero_ps();
#pragma GCC unroll 16
    for (int r = 0; r < MR; ++r) {
        float* yr = a.y + r * a.ldy;
        __m512 v0 = _mm512_add_ps(c0[r], bias0);
        __m512 v1 = _mm512_add_ps(c1[r], bias1);
        if (a.accumulate) {
            v0 = _mm512_add_ps(v0, _mm512_maskz_loadu_ps(m0, yr));
            v1 = _mm512_add_ps(v1, _mm512_maskz_loadu_ps(m1, yr + 16));
        }
        _mm512_mask_storeu_ps(yr, m0, v0);
        _mm512_mask_storeu_ps(yr + 16, m1, v1);
    }
}

// ---- AVX2 + FMA: MR rows x 32 columns in 4*MR ymm accumulators -----------------------------

template <int MR>
__attribute__((target("avx2,fma"))) void tile_avx2(const Tile& a) {
    __m256 c[MR][4];
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r)
        for (int q = 0; q < 4; ++q) c[r][q] = _mm256_setzero_ps();
    const float* bp = a.panel;
    for (int j = 0; j < a.n_tap; ++j) {
        const float* xj = a.x + j * a.tap_step;
        for (int i = 0; i < a.c_in; ++i, bp += kPanel) {
#pragma GCC unroll 8
            for (int r = 0; r < MR; ++r) {
                const __m256 v = _mm256_broadcast_ss(xj + r * a.ldx + i);
                c[r][0] = _mm256_fmadd_ps(v, _mm256_loadu_ps(bp), c[r][0]);
                c[r][1] = _mm256_fmadd_ps(v, _mm256_loadu_ps(bp + 8), c[r][1]);
                c[r][2] = _mm256_fmadd_ps(v, _mm256_loadu_ps(bp + 16), c[r][2]);
                c[r][3] = _mm256_fmadd_ps(v, _mm256_loadu_ps(bp + 24), c[r][3]);
            }
        }
    }
    for (int r = 0; r < MR; ++r) {
        alignas(32) float tmp[kPanel];
        for (int q = 0; q < 4; ++q) _mm256_store_ps(tmp + 8 * q, c[r][q]);
        float* yr = a.y + r * a.ldy;
        for (int o = 0; o < a.n_col; ++o) {
            float v = tmp[o] + (a.bias ? a.bias[o] : 0.0f);
            yr[o] = a.accumulate ? v + yr[o] : v;
        }
    }
}

// ---- Portable fallback ---------------------------------------------------------------------

template <int MR>
void tile_generic(const Tile& a) {
    float c[MR][kPanel] = {};
    const float* bp = a.panel;
    for (int j = 0; j < a.n_tap; ++j) {
        const float* xj = a.x + j * a.tap_step;
        for (int i = 0; i < a.c_in; ++i, bp += kPanel)
            for (int r = 0; r < MR; ++r) {
                const float v = xj[r * a.ldx + i];
                for (int o = 0; o < kPanel; ++o) c[r][o] += v * bp[o];
            }
    }
    for (int r = 0; r < MR; ++r) {
        float* yr = a.y + r * a.ldy;
        for (int o = 0; o < a.n_col; ++o) {
            float v = c[r][o] + (a.bias ? a.bias[o] : 0.0f);
            yr[o] = a.accumulate ? v + yr[o] : v;
        }
    }
}

using TileFn = void (*)(const Tile&);

#define QWEN3TTS_TILE_TABLE(fn, max_mr)                                      \
    template <int... R>                                                      \
    constexpr std::array<TileFn, sizeof...(R)> fn##_table_impl(              \
        std::integer_sequence<int, R...>) {                                  \
        return {&fn<R + 1>...};                                              \
    }                                                                        \
    const std::array<TileFn, max_mr> fn##_table =                            \
        fn##_table_impl(std::make_integer_sequence<int, max_mr>());

constexpr int kMrAvx512 = 12;
constexpr int kMrAvx2 = 3;
constexpr int kMrGeneric = 4;

QWEN3TTS_TILE_TABLE(tile_avx512, kMrAvx512)
QWEN3TTS_TILE_TABLE(tile_avx2, kMrAvx2)
QWEN3TTS_TILE_TABLE(tile_generic, kMrGeneric)

#undef QWEN3TTS_TILE_TABLE

void check_pack_args(int c_out, int c_in, int n_tap, int dilation) {
    if (c_out <= 0 || c_in <= 0 || n_tap <= 0 || dilation <= 0)
        throw Error(ErrorCode::invalid_argument,
                    "conv pack: bad shape c_out=" + std::to_string(c_out) +
                        " c_in=" + std::to_string(c_in) + " n_tap=" + std::to_string(n_tap) +
                        " dilation=" + std::to_string(dilation));
}

// Packs taps given by `tap_weight(o, i, j)`.
template <class F>
PackedConv pack_impl(int c_out, int c_in, int n_tap, int dilation, const float* bias, F tap_weight) {
    check_pack_args(c_out, c_in, n_tap, dilation);
    PackedConv p;
    p.c_out = c_out;
    p.c_in = c_in;
    p.n_tap = n_tap;
    p.dilation = dilation;
    const int n_panel = p.n_panel();
    p.panels.assign(size_t(n_panel) * n_tap * c_in * kPanel, 0.0f);
    for (int pi = 0; pi < n_panel; ++pi)
        for (int j = 0; j < n_tap; ++j)
            for (int i = 0; i < c_in; ++i) {
                float* dst = p.panels.data() + ((size_t(pi) * n_tap + j) * c_in + i) * kPanel;
                for (int q = 0; q < kPanel; ++q) {
                    const int o = pi * kPanel + q;
                    if (o < c_out) dst[q] = tap_weight(o, i, j);
                }
            }
    if (bias) {
        p.bias.assign(size_t(n_panel) * kPanel, 0.0f);
        std::memcpy(p.bias.data(), bias, sizeof(float) * size_t(c_out));
    }
    return p;
}

}  // namespace

PackedConv pack_conv1d(const float* w, int c_out, int c_in, int n_tap, int dilation,
                       const float* bias) {
    return pack_impl(c_out, c_in, n_tap, dilation, bias, [&](int o, int i, int j) {
        return w[(size_t(o) * c_in + i) * n_tap + j];
    });
}

PackedConv pack_linear(const float* w, int out, int in, const float* bias) {
    return pack_impl(out, in, 1, 1, bias, [&](int o, int i, int) { return w[size_t(o) * in + i]; });
}

PackedConv pack_conv_transpose1d_phase(const float* w, int c_in, int c_out, int kernel,
                                       int stride, int phase, const float* bias) {
    if (stride <= 0 || kernel % stride != 0 || phase < 0 || phase >= stride)
        throw Error(ErrorCode::invalid_argument,
                    "conv_transpose1d pack: kernel " + std::to_string(kernel) +
                        " must be a multiple of stride " + std::to_string(stride));
    const int m = kernel / stride;
    return pack_impl(c_out, c_in, m, 1, bias, [&](int o, int i, int j) {
        const int k = phase + (m - 1 - j) * stride;
        return w[(size_t(i) * c_out + o) * kernel + k];
    });
}

void conv1d_gemm(const PackedConv& w, const float* x, int64_t ldx, int64_t n_rows, float* y,
                 int64_t ldy, bool accumulate, ThreadPool* pool) {
    if (n_rows <= 0) return;
    const Isa isa = forced_isa();
    const TileFn* table = isa == Isa::avx512 ? tile_avx512_table.data()
                          : isa == Isa::avx2 ? tile_avx2_table.data()
                                             : tile_generic_table.data();
    const int mr = isa == Isa::avx512 ? kMrAvx512 : isa == Isa::avx2 ? kMrAvx2 : kMrGeneric;
    // Row blocks of a few tiles: the block's input rows stay in L2 while every panel passes.
    const int64_t row_block = int64_t(mr) * 8;
    const int64_t n_rb = (n_rows + row_block - 1) / row_block;
    const int n_panel = w.n_panel();
    const int64_t n_item = n_rb * n_panel;
    const size_t panel_size = size_t(w.n_tap) * w.c_in * kPanel;

    auto run = [&](int64_t begin, int64_t end) {
        Tile t{};
        t.ldx = ldx;
        t.tap_step = int64_t(w.dilation) * ldx;
        t.n_tap = w.n_tap;
        t.c_in = w.c_in;
        t.ldy = ldy;
        t.accumulate = accumulate;
        for (int64_t item = begin; item < end; ++item) {
            const int64_t rb = item / n_panel;
            const int p = int(item % n_panel);
            t.panel = w.panels.data() + size_t(p) * panel_size;
            t.bias = w.bias.empty() ? nullptr : w.bias.data() + size_t(p) * kPanel;
            t.n_col = std::min(kPanel, w.c_out - p * kPanel);
            const int64_t r_end = std::min(n_rows, (rb + 1) * row_block);
            for (int64_t r = rb * row_block; r < r_end; r += mr) {
                const int rows = int(std::min<int64_t>(mr, r_end - r));
                t.x = x + r * ldx;
                t.y = y + r * ldy + int64_t(p) * kPanel;
                table[rows - 1](t);
            }
        }
    };
    // Below ~50k multiply-adds a fork/join costs more than it saves.
    const bool parallel = pool && pool->size() > 1 && n_item > 1 && w.flops(n_rows) > 1e5;
    if (parallel)
        pool->parallel_for(n_item, 1, run);
    else
        run(0, n_item);
}

const char* conv_gemm_isa() {
    switch (forced_isa()) {
        case Isa::avx512: return "avx512";
        case Isa::avx2: return "avx2";
        default: return "generic";
    }
}

bool set_conv_gemm_isa(const char* isa) {
    const Isa best = detect_isa();
    const std::string s = isa ? isa : "";
    Isa want;
    if (s.empty()) want = best;
    else if (s == "avx512") want = Isa::avx512;
    else if (s == "avx2") want = Isa::avx2;
    else if (s == "generic") want = Isa::generic;
    else return false;
    if (int(want) > int(best)) return false;
    forced_isa() = want;
    return true;
}

}  // namespace qwen3tts::cpu
