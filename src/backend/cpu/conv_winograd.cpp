#include "backend/cpu/conv_winograd.hpp"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "backend/cpu/cpu_features.hpp"
#include "core/error.hpp"

namespace qwen3tts::cpu {

namespace {

// Most evaluation points: F(4, 9). The points come in this order; the last one is ∞.
constexpr int kMaxPoints = 12;
constexpr double kPoints[kMaxPoints - 1] = {0, 1, -1, 2, -2, 0.5, -0.5, 4, -4, 0.25, -0.25};

// Tiles per GEMM row block: a multiple of every micro-kernel's row count (12, 4, 3).
constexpr int64_t kTileBlock = 96;
// Tiles per input-transform work item.
constexpr int64_t kTransformBlock = 16;
// Winograd weights up to this size are multiplied where their inputs were transformed.
constexpr size_t kFusedWeightBytes = size_t(2) << 20;
// Transformed inputs held at once (floats): bounds the scratch of a long call.
constexpr int64_t kChunkFloats = int64_t(1) << 21;

// x^e for a small exponent (0^0 = 1).
double power(double x, int e) {
    double v = 1.0;
    for (int i = 0; i < e; ++i) v *= x;
    return v;
}

// Row k of the evaluation of a polynomial with `n_coef` coefficients at point k (the last is ∞,
// which takes the leading coefficient).
std::vector<double> evaluation_row(int k, int n_points, int n_coef) {
    std::vector<double> row(size_t(n_coef), 0.0);
    if (k == n_points - 1) {
        row.back() = 1.0;
        return row;
    }
    for (int e = 0; e < n_coef; ++e) row[size_t(e)] = power(kPoints[k], e);
    return row;
}

// The inverse of an n x n matrix (row-major) by Gauss-Jordan with partial pivoting; the
// evaluation matrices here are well conditioned for it (distinct points, n <= 12).
std::vector<double> inverse(std::vector<double> a, int n) {
    std::vector<double> inv(size_t(n) * n, 0.0);
    for (int i = 0; i < n; ++i) inv[size_t(i) * n + i] = 1.0;
    for (int c = 0; c < n; ++c) {
        int pivot = c;
        for (int r = c + 1; r < n; ++r)
            if (std::abs(a[size_t(r) * n + c]) > std::abs(a[size_t(pivot) * n + c])) pivot = r;
        for (int j = 0; j < n; ++j) {
            std::swap(a[size_t(c) * n + j], a[size_t(pivot) * n + j]);
            std::swap(inv[size_t(c) * n + j], inv[size_t(pivot) * n + j]);
        }
        const double d = a[size_t(c) * n + c];
        for (int j = 0; j < n; ++j) {
            a[size_t(c) * n + j] /= d;
            inv[size_t(c) * n + j] /= d;
        }
        for (int r = 0; r < n; ++r) {
            if (r == c) continue;
            const double f = a[size_t(r) * n + c];
            for (int j = 0; j < n; ++j) {
                a[size_t(r) * n + j] -= f * a[size_t(c) * n + j];
                inv[size_t(r) * n + j] -= f * inv[size_t(c) * n + j];
            }
        }
    }
    return inv;
}

// Which tiles a part's rows make. Tile i covers outputs t, t + d, ..., t + (m-1)d with
// t = (i / d)·m·d + i % d, for the i with t < n_rows; the last tiles may cover fewer.
struct TileGrid {
    int m, d;
    int64_t tiles(int64_t n_rows) const {
        const int64_t md = int64_t(m) * d;
        return n_rows / md * d + std::min<int64_t>(d, n_rows % md);
    }
    int64_t first_row(int64_t i) const { return i / d * int64_t(m) * d + i % d; }
    int outputs(int64_t t, int64_t n_rows) const {
        return int(std::min<int64_t>(m, (n_rows - 1 - t) / d + 1));
    }
};

// The N transformed input vectors of one tile: v[k·point_stride + i] = Σ_l B[k][l]·x_l[i]
// where x_l is input row t + l·d, zero at and past row `avail` (the rows the caller gave).
template <int N>
void transform_input_generic(const float* b, const float* x, int64_t ldx, int64_t t, int d,
                             int64_t avail, int c_in, float* v, int64_t point_stride) {
    for (int k = 0; k < N; ++k) {
        float* vk = v + k * point_stride;
        std::fill(vk, vk + c_in, 0.0f);
        for (int l = 0; l < N; ++l) {
            const float bkl = b[k * N + l];
            const int64_t row = t + int64_t(l) * d;
            if (bkl == 0.0f || row >= avail) continue;
            const float* xl = x + row * ldx;
            for (int i = 0; i < c_in; ++i) vk[i] += bkl * xl[i];
        }
    }
}

// N points as a template argument: the inputs stay in registers (a runtime count spilled them).
template <int N>
__attribute__((target("avx512f"))) void transform_input_avx512(const float* b, const float* x,
                                                               int64_t ldx, int64_t t, int d,
                                                               int64_t avail, int c_in, float* v,
                                                               int64_t point_stride) {
    for (int i = 0; i < c_in; i += 16) {
        const __mmask16 mask =
            c_in - i >= 16 ? __mmask16(0xffff) : __mmask16((1u << (c_in - i)) - 1);
        __m512 xl[N];
#pragma GCC unroll 12
        for (int l = 0; l < N; ++l) {
            const int64_t row = t + int64_t(l) * d;
            xl[l] =
                row < avail ? _mm512_maskz_loadu_ps(mask, x + row * ldx + i) : _mm512_setzero_ps();
        }
#pragma GCC unroll 12
        for (int k = 0; k < N; ++k) {
            __m512 acc = _mm512_setzero_ps();
#pragma GCC unroll 12
            for (int l = 0; l < N; ++l) {
                const float bkl = b[k * N + l];
                if (bkl != 0.0f) acc = _mm512_fmadd_ps(_mm512_set1_ps(bkl), xl[l], acc);
            }
            _mm512_mask_storeu_ps(v + k * point_stride + i, mask, acc);
        }
    }
}

// Output u (< n_out) of a tile into y rows t + u·d: Σ_k A[u][k]·prod[k·ld_prod + q] (+ bias, + y
// when accumulating) for the n_col columns of one panel.
struct TileOutput {
    const float* a;  // [m][n]
    int n;
    const float* prod;  // point k's kPanel products at prod + k·ld_prod
    int64_t ld_prod;
    const float* bias;  // kPanel values or nullptr
    float* y;           // output row t, at the panel's first column
    int64_t row_step;   // floats from output u to u + 1 (d rows)
    int n_out;
    int n_col;
    bool accumulate;
};

void transform_output_generic(const TileOutput& o) {
    for (int u = 0; u < o.n_out; ++u) {
        float* yu = o.y + u * o.row_step;
        for (int q = 0; q < o.n_col; ++q) {
            float s = 0.0f;
            for (int k = 0; k < o.n; ++k) s += o.a[u * o.n + k] * o.prod[k * o.ld_prod + q];
            if (o.bias) s += o.bias[q];
            yu[q] = o.accumulate ? yu[q] + s : s;
        }
    }
}

template <int N>
__attribute__((target("avx512f"))) void transform_output_avx512(const TileOutput& o) {
    static_assert(kPanel == 32, "two vectors per panel row");
    for (int half = 0; half < 2; ++half) {
        const int cols = std::min(16, o.n_col - 16 * half);
        if (cols <= 0) break;
        const __mmask16 mask = cols == 16 ? __mmask16(0xffff) : __mmask16((1u << cols) - 1);
        __m512 p[N];
#pragma GCC unroll 12
        for (int k = 0; k < N; ++k) p[k] = _mm512_load_ps(o.prod + k * o.ld_prod + 16 * half);
        const __m512 bias =
            o.bias ? _mm512_maskz_loadu_ps(mask, o.bias + 16 * half) : _mm512_setzero_ps();
        for (int u = 0; u < o.n_out; ++u) {
            __m512 s = bias;
#pragma GCC unroll 12
            for (int k = 0; k < N; ++k) {
                const float auk = o.a[u * N + k];
                if (auk != 0.0f) s = _mm512_fmadd_ps(_mm512_set1_ps(auk), p[k], s);
            }
            float* yu = o.y + u * o.row_step + 16 * half;
            if (o.accumulate) s = _mm512_add_ps(s, _mm512_maskz_loadu_ps(mask, yu));
            _mm512_mask_storeu_ps(yu, mask, s);
        }
    }
}

// The transforms of the active ISA for n points.
struct Transforms {
    void (*input)(const float* b, const float* x, int64_t ldx, int64_t t, int d, int64_t avail,
                  int c_in, float* v, int64_t point_stride);
    void (*output)(const TileOutput& o);
};

template <int N>
Transforms transforms_of(bool avx512) {
    if (avx512) return {&transform_input_avx512<N>, &transform_output_avx512<N>};
    return {&transform_input_generic<N>, &transform_output_generic};
}

template <int... N>
Transforms transforms_for(int n, bool avx512, std::integer_sequence<int, N...>) {
    Transforms t{};
    ((n == N + 3 ? (t = transforms_of<N + 3>(avx512), 0) : 0), ...);
    return t;
}

}  // namespace

void add_winograd(PackedConv& w, int m) {
    const int r = w.n_tap, n = m + r - 1;
    if (r < 2 || m < 2 || m > kMaxWinogradTile || n > kMaxPoints)
        throw Error(ErrorCode::invalid_argument,
                    "Winograd F(" + std::to_string(m) + ", " + std::to_string(r) +
                        "): needs 2 <= m <= " + std::to_string(kMaxWinogradTile) +
                        ", at least 2 taps and at most " + std::to_string(kMaxPoints) + " points");
    std::vector<double> vandermonde;
    for (int k = 0; k < n; ++k) {
        const std::vector<double> row = evaluation_row(k, n, n);
        vandermonde.insert(vandermonde.end(), row.begin(), row.end());
    }
    const std::vector<double> interpolate = inverse(vandermonde, n);
    WinogradPanels& wg = w.winograd;
    wg.m = m;
    wg.n = n;
    wg.input_transform.assign(size_t(n) * n, 0.0f);
    wg.output_transform.assign(size_t(m) * n, 0.0f);
    std::vector<double> weight_transform(size_t(n) * r);  // [n][r]
    for (int k = 0; k < n; ++k) {
        // B = interpolateᵀ (the transposition principle turns the interpolation of a product
        // of polynomials into the input side of a correlation); row k scaled to a largest
        // entry of 1, the factor moved into G.
        double scale = 0.0;
        for (int l = 0; l < n; ++l)
            scale = std::max(scale, std::abs(interpolate[size_t(l) * n + k]));
        for (int l = 0; l < n; ++l)
            wg.input_transform[size_t(k) * n + l] = float(interpolate[size_t(l) * n + k] / scale);
        const std::vector<double> g = evaluation_row(k, n, r);
        for (int j = 0; j < r; ++j) weight_transform[size_t(k) * r + j] = g[size_t(j)] * scale;
        const std::vector<double> a = evaluation_row(k, n, m);
        for (int u = 0; u < m; ++u) wg.output_transform[size_t(u) * n + k] = float(a[size_t(u)]);
    }
    const int n_panel = w.n_panel();
    const size_t slice = size_t(w.c_in) * kPanel;
    wg.panels = HugeBuffer<float>(size_t(n_panel) * n * slice);
    qwen3tts::detail::populate_for_write(wg.panels.data(), wg.panels.size() * sizeof(float));
    for (int p = 0; p < n_panel; ++p)
        for (int k = 0; k < n; ++k) {
            float* dst = wg.panels.data() + (size_t(p) * n + k) * slice;
            for (size_t e = 0; e < slice; ++e) {
                double s = 0.0;
                for (int j = 0; j < r; ++j)
                    s += weight_transform[size_t(k) * r + j] *
                         double(w.panels[(size_t(p) * r + j) * slice + e]);
                dst[e] = float(s);
            }
        }
}

void conv1d_winograd_parts(const PackedConv& w, const ConvRows* parts, int n_parts, bool accumulate,
                           ThreadPool* pool) {
    constexpr int kMaxParts = 64;
    if (n_parts > kMaxParts) {
        for (int s = 0; s < n_parts; s += kMaxParts)
            conv1d_winograd_parts(w, parts + s, std::min(kMaxParts, n_parts - s), accumulate, pool);
        return;
    }
    const WinogradPanels& wg = w.winograd;
    if (wg.empty()) throw Error(ErrorCode::internal, "conv1d_winograd_parts: no Winograd weights");
    const int n = wg.n;
    const TileGrid grid{wg.m, w.dilation};
    int64_t first_tile[kMaxParts + 1];  // tiles of parts [0, s)
    int64_t total_rows = 0;
    first_tile[0] = 0;
    for (int s = 0; s < n_parts; ++s) {
        const int64_t rows = std::max<int64_t>(parts[s].n_rows, 0);
        total_rows += rows;
        first_tile[s + 1] = first_tile[s] + grid.tiles(rows);
    }
    const int64_t n_tile = first_tile[n_parts];
    if (n_tile == 0) return;
    const Transforms transforms = transforms_for(n, active_isa() == Isa::avx512,
                                                 std::make_integer_sequence<int, kMaxPoints - 2>());
    const bool parallel = w.flops(total_rows) > 1e5;
    const int64_t ldv = (int64_t(w.c_in) + 15) / 16 * 16;
    const int n_panel = w.n_panel();
    const size_t panel_size = size_t(n) * w.c_in * kPanel;
    // Tiles [c_begin, c_end) transformed into v: point k of tile c at v[k·stride + (c -
    // c_begin)·ldv].
    auto transform = [&](int64_t c_begin, int64_t c_end, float* v, int64_t stride) {
        for (int64_t c = c_begin, s = 0; c < c_end; ++c) {
            while (first_tile[s + 1] <= c) ++s;  // the part of tile c
            const ConvRows& part = parts[s];
            const int64_t t = grid.first_row(c - first_tile[s]);
            transforms.input(wg.input_transform.data(), part.x, part.ldx, t, w.dilation,
                             part.n_rows + w.history(), w.c_in, v + (c - c_begin) * ldv, stride);
        }
    };
    // The outputs of tiles [c_begin, c_end) (at most kTileBlock) in panel p's columns, from
    // their transformed inputs as `transform` left them.
    auto multiply = [&](int64_t c_begin, int64_t c_end, const float* v, int64_t stride, int p) {
        float* prod = detail::thread_scratch<detail::kItemScratch>(size_t(n) * kTileBlock * kPanel);
        const float* panel = wg.panels.data() + size_t(p) * panel_size;
        for (int k = 0; k < n; ++k)
            detail::panel_product(v + k * stride, ldv, c_end - c_begin, w.c_in,
                                  panel + size_t(k) * w.c_in * kPanel,
                                  prod + k * kTileBlock * kPanel);
        TileOutput o{};
        o.a = wg.output_transform.data();
        o.n = n;
        o.ld_prod = kTileBlock * kPanel;
        o.bias = w.bias.empty() ? nullptr : w.bias.data() + size_t(p) * kPanel;
        o.n_col = std::min(kPanel, w.c_out - p * kPanel);
        o.accumulate = accumulate;
        for (int64_t c = c_begin, s = 0; c < c_end; ++c) {
            while (first_tile[s + 1] <= c) ++s;  // the part of tile c
            const ConvRows& part = parts[s];
            const int64_t t = grid.first_row(c - first_tile[s]);
            o.prod = prod + (c - c_begin) * kPanel;
            o.y = part.y + t * part.ldy + int64_t(p) * kPanel;
            o.row_step = int64_t(w.dilation) * part.ldy;
            o.n_out = grid.outputs(t, part.n_rows);
            transforms.output(o);
        }
    };
    if (wg.panels.size() * sizeof(float) <= kFusedWeightBytes) {
        // Weights that stay in L2 (the codec's last blocks, 96-192 channels, many rows): each
        // work item transforms one block of tiles into its own scratch and multiplies it by
        // every panel while it is in cache.
        const int64_t n_block = (n_tile + kTileBlock - 1) / kTileBlock;
        detail::for_each_item(n_block, parallel, pool, [&](int64_t b) {
            const int64_t c0 = b * kTileBlock, c1 = std::min(n_tile, c0 + kTileBlock);
            float* v =
                detail::thread_scratch<detail::kInputScratch>(size_t(n) * kTileBlock * size_t(ldv));
            transform(c0, c1, v, kTileBlock * ldv);
            for (int p = 0; p < n_panel; ++p) multiply(c0, c1, v, kTileBlock * ldv, p);
        });
        return;
    }
    // Larger weights: the inputs of a chunk of tiles are transformed first (shared by all
    // panels), then multiplied block by panel.
    const int64_t chunk = std::max(kTileBlock, kChunkFloats / (n * ldv) / kTileBlock * kTileBlock);
    for (int64_t c0 = 0; c0 < n_tile; c0 += chunk) {
        const int64_t nc = std::min(chunk, n_tile - c0);
        // The calling thread's scratch, read by the pool's workers during the call.
        float* v =
            detail::thread_scratch<detail::kInputScratch>(size_t(n) * size_t(nc) * size_t(ldv));
        const int64_t n_transform = (nc + kTransformBlock - 1) / kTransformBlock;
        detail::for_each_item(n_transform, parallel, pool, [&](int64_t item) {
            const int64_t b0 = item * kTransformBlock;
            transform(c0 + b0, c0 + std::min(nc, b0 + kTransformBlock), v + b0 * ldv, nc * ldv);
        });
        const int64_t n_block = (nc + kTileBlock - 1) / kTileBlock;
        detail::for_each_item(n_block * n_panel, parallel, pool, [&](int64_t item) {
            // One part: block-major, so a block's transformed inputs are reused over all
            // panels. Several parts (a batch of codec streams, few rows each, large weights):
            // panel-major, so a panel is reused over every block while in cache.
            const int64_t b = n_parts == 1 ? item / n_panel : item % n_block;
            const int p = int(n_parts == 1 ? item % n_panel : item / n_block);
            const int64_t b0 = b * kTileBlock;
            multiply(c0 + b0, c0 + std::min(nc, b0 + kTileBlock), v + b0 * ldv, nc * ldv, p);
        });
    }
}

}  // namespace qwen3tts::cpu
