// Stride-1 1-D convolution as a register-blocked GEMM on channels-last activations: the codec
// decoder's hot path (dilated k=7 and 1x1 convs at 400 Hz-24 kHz, transposed convs as one conv
// over their stride phases, linear layers as k=1 convs).
//
// Layout. Activations are time-major `[T, C]` with a row stride (`ld*`). A convolution with
// n_tap taps and dilation d reads, for output row t, the input rows t + j*d (j = 0..n_tap-1)
// counted from a base pointer that sits (n_tap-1)*d rows before the first "current" input
// row: causal left context is simply the rows in front of the current ones (the caller keeps
// them there: zeros at stream start, carried history afterwards). No im2col is needed, because
// each tap is the same matrix shifted by whole rows.
//
// Weights are packed once at load into panels of kPanel output channels, each panel laid out
// [n_tap][c_in][kPanel] (zero-padded past c_out), so the micro-kernel streams one contiguous
// panel. The kernel is picked on each call from cpu::active_isa() (AVX-512, AVX2+FMA,
// portable; see cpu_features.hpp), so the binary runs on any x86-64.
//
// Thread-safety: PackedConv is immutable after packing and may be shared; conv1d_gemm writes
// only `y`. With a pool, work is split over row blocks (long inputs) or output panels.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "core/huge_buffer.hpp"
#include "core/tensor_view.hpp"
#include "core/thread_pool.hpp"

namespace qwen3tts::cpu {

constexpr int kPanel = 32;  // output channels per packed panel (two AVX-512 vectors)
// Below this many outputs (the codec's final conv has one) a panel would be mostly padding:
// the AVX-512 kernel then takes dot products over rows of `narrow` instead.
constexpr int kNarrowOut = 4;

// The same convolution as Winograd's minimal filtering F(m, n_tap) over each phase of the
// dilation (conv_winograd.hpp): weights transformed at load, one GEMM per evaluation point.
// Empty unless add_winograd() was called.
struct WinogradPanels {
    int m = 0;  // outputs per tile
    int n = 0;  // evaluation points = m + n_tap - 1
    // [n_panel][n][c_in][kPanel]: the weights evaluated at each point (G·w), panel by panel.
    HugeBuffer<float> panels;
    std::vector<float> input_transform;   // [n][n]: point k's input is Σ_l B[k][l]·x_l
    std::vector<float> output_transform;  // [m][n]: output u is Σ_k A[u][k]·product_k

    bool empty() const { return m == 0; }
};

struct PackedConv {
    int c_out = 0;
    int c_in = 0;
    int n_tap = 0;
    int dilation = 1;
    // [ceil(c_out/kPanel)][n_tap][c_in][kPanel]. A huge-page buffer written once (no zeroing
    // pass): the codec's ~450 MB of panels took most of its load time in 4 KiB page faults.
    HugeBuffer<float> panels;
    std::vector<float> bias;    // [c_out] or empty (no bias)
    std::vector<float> narrow;  // c_out <= kNarrowOut: [c_out][n_tap][c_in]; else empty
    WinogradPanels winograd;    // optional second form of the same weights (see above)

    int n_panel() const { return (c_out + kPanel - 1) / kPanel; }
    int64_t history() const { return int64_t(n_tap - 1) * dilation; }  // rows before row 0
    double flops(int64_t n_rows) const { return 2.0 * double(n_rows) * c_out * c_in * n_tap; }
};

// Each packer takes the weight as f32 values or as a checkpoint tensor read in place (F32, BF16
// or F16, widened exactly while packing: no widened copy of the file to allocate and fault in;
// another dtype is Error(model) naming the tensor). The tensor's shape was checked by the caller.

// From a torch Conv1d weight [c_out, c_in, n_tap]: y[t,o] = b[o] + Σ_j Σ_i w[o,i,j]·x[t+j·d, i].
PackedConv pack_conv1d(const float* w, int c_out, int c_in, int n_tap, int dilation,
                       const float* bias);
PackedConv pack_conv1d(const TensorView& w, int c_out, int c_in, int n_tap, int dilation,
                       const float* bias);
// From a torch Linear weight [out, in]: y[t,o] = b[o] + Σ_i w[o,i]·x[t,i].
PackedConv pack_linear(const float* w, int out, int in, const float* bias);
// Linear weights [rows_k, in] of the same input stacked in order (q/k/v, gate/up) as one
// matrix of Σ rows_k outputs; the parts share one dtype (else Error(model) naming them).
PackedConv pack_stacked_linear(const TensorView* const* parts, int n_parts, int in,
                               const float* bias);
// A causal ConvTranspose1d (torch weight [c_in, c_out, kernel], kernel = m·stride,
// right-trimmed to T·stride outputs) as one m-tap stride-1 conv with stride·c_out outputs:
// output row n·stride + r is Σ_{j<m} x[n-(m-1)+j] · w[:, :, r + (m-1-j)·stride], and column
// r·c_out + o of the packed conv's row n is output (n·stride + r, o). With channels-last
// output rows of exactly c_out values, the stride output rows of input row n are adjacent,
// so one call (ldy = stride·c_out) computes all phases: one parallel region instead of
// `stride`, and stride times more panels to share among threads. Bias is added once per output.
PackedConv pack_conv_transpose1d(const float* w, int c_in, int c_out, int kernel, int stride,
                                 const float* bias);
PackedConv pack_conv_transpose1d(const TensorView& w, int c_in, int c_out, int kernel, int stride,
                                 const float* bias);
// A strided Conv1d (torch weight [c_out, c_in, kernel], kernel = m·stride) as one m-tap
// stride-1 conv over input rows of stride·c_in values (row n: samples n·stride ..
// n·stride + stride - 1, channels-last): its input channel r·c_in + i at tap b is
// w[o, i, b·stride + r].
PackedConv pack_strided_conv1d(const TensorView& w, int c_out, int c_in, int kernel, int stride,
                               const float* bias);

// y[t*ldy + o] = (accumulate ? y[t*ldy + o] : 0) + bias[o] + Σ_j Σ_i W[o,i,j]·x[(t + j·d)*ldx + i]
// for t in [0, n_rows), o in [0, c_out). `x` points at the first history row (see above).
// x and y must not overlap.
void conv1d_gemm(const PackedConv& w, const float* x, int64_t ldx, int64_t n_rows, float* y,
                 int64_t ldy, bool accumulate, ThreadPool* pool);

// One input/output pair of a multi-part call: the same weights applied to the rows of several
// independent inputs (the codec streams of a batch), as conv1d_gemm does for each.
struct ConvRows {
    const float* x = nullptr;  // first history row
    int64_t ldx = 0;
    int64_t n_rows = 0;
    float* y = nullptr;
    int64_t ldy = 0;
};

// conv1d_gemm on every part, in one parallel region whose work items run panel by panel over
// all parts, so each weight panel is read from memory once for the whole batch while it sits
// in cache. Each output row gets exactly the arithmetic of a one-part call (same tiles, same
// reduction order): a part's result does not depend on the other parts.
void conv1d_gemm_parts(const PackedConv& w, const ConvRows* parts, int n_parts, bool accumulate,
                       ThreadPool* pool);

namespace detail {

// Shared with the Winograd convolution (conv_winograd.cpp).

// acc[r·kPanel + q] = Σ_i x[r·ldx + i]·panel[i·kPanel + q] for r < n_rows, q < kPanel: rows of
// x against one packed panel slice of c_in rows, with the active ISA's micro-kernels and the
// reduction order of conv1d_gemm (blocks of input channels, in order).
void panel_product(const float* x, int64_t ldx, int64_t n_rows, int c_in, const float* panel,
                   float* acc);

// At least `floats` floats of the calling thread's, 64-byte aligned; reused (grown, never
// shrunk) by every call on this thread with the same Slot (one slot per buffer that may be in
// use at the same time: a work item's sums, a call's shared inputs).
template <int Slot>
float* thread_scratch(size_t floats) {
    thread_local std::vector<float> buffer;
    if (buffer.size() < floats + 16) buffer.resize(floats + 16);
    const uintptr_t p = reinterpret_cast<uintptr_t>(buffer.data());
    return reinterpret_cast<float*>((p + 63) & ~uintptr_t(63));
}
constexpr int kItemScratch = 0;   // a work item's outputs, summed before they are written
constexpr int kInputScratch = 1;  // transformed inputs (conv_winograd)

// Calls run(item) for every item in [0, n_item), over the pool when `parallel`. Items are handed
// out dynamically rather than split in fixed halves: on a loaded machine a descheduled thread
// then delays the call by one item, not by half of it.
template <class F>
void for_each_item(int64_t n_item, bool parallel, ThreadPool* pool, const F& run) {
    if (!parallel || !pool || pool->size() <= 1 || n_item <= 1) {
        for (int64_t i = 0; i < n_item; ++i) run(i);
        return;
    }
    std::atomic<int64_t> next{0};
    auto grab = [&] {
        for (int64_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < n_item;) run(i);
    };
    // One pointer of capture fits std::function's small buffer: no allocation per call.
    const auto* g = &grab;
    pool->parallel_for(pool->size(), 1, [g](int64_t, int64_t) { (*g)(); });
}

}  // namespace detail

// Which micro-kernel conv1d_gemm uses now: "avx512", "avx2" or "generic" (set_max_isa() and
// QWEN3TTS_ISA choose it).
const char* conv_gemm_isa();

}  // namespace qwen3tts::cpu
