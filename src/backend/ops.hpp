// The device-neutral operator set every model is built on: one signature per op, the only
// backend header that nn/ and model/ include. Activations are f32 and channels-last
// ([rows, channels], often with a row stride `ld*`); weights stay in their checkpoint dtype
// (linear) or are prepared once at load (ConvWeights). Each op has a plain-loop reference
// version (the oracle, KernelSet::reference) and a fast CPU version (SIMD picked at run time,
// threads from the context's pool); quantized weights, batched streams and other devices plug
// in below this header.
#pragma once

#include <cstdint>

#include "backend/cpu/conv_gemm.hpp"
#include "backend/cpu/conv_winograd.hpp"
#include "backend/linear_weights.hpp"
#include "backend/quantized_weights.hpp"
#include "core/tensor_view.hpp"
#include "core/thread_pool.hpp"

namespace qwen3tts::backend {

enum class KernelSet { reference, fast };

// The SIMD level KernelSet::fast runs at on this CPU ("generic", "avx2", "avx512"), after any
// QWEN3TTS_ISA cap.
const char* fast_kernel_level();

struct ExecContext {
    KernelSet kernels = KernelSet::fast;
    ThreadPool* pool = nullptr;  // may be null: single-threaded
    // Opt-in approximation, off by default: linears on bf16 weights round their input rows to
    // bf16 and multiply with AVX512_BF16 dot products (vdpbf16ps) on the raw weights, where the
    // CPU has them (else the exact path runs). Rows stay batch invariant.
    bool bf16_activations = false;
};

// ---- Linear layers on checkpoint weights -------------------------------------------------

// y[n, out] = x[n, in] · W[out, in]ᵀ (+ bias[out]); W any float dtype, bias f32 or null.
void linear(const ExecContext& ctx, const float* x, int64_t n, const TensorView& w,
            const float* bias, float* y);

// Several linears of the same input in one parallel region (q/k/v, gate/up): ys[j] =
// x · ws[j]ᵀ. Fewer thread hand-offs per layer than separate calls.
void linear_group(const ExecContext& ctx, const float* x, int64_t n, const TensorView* const* ws,
                  float* const* ys, int count);

// The same on weights quantized at load (quantized_weights.hpp): x is quantized per row and
// block of 32 to int8 first, so this is an approximation of the float linear, measured in
// docs/quantization.md. Each output row depends on its own input row only.
void linear(const ExecContext& ctx, const float* x, int64_t n, const QuantizedWeights& w,
            const float* bias, float* y);

// Either of the above, as the layer's weights were loaded.
void linear(const ExecContext& ctx, const float* x, int64_t n, const LinearWeights& w,
            const float* bias, float* y);
void linear_group(const ExecContext& ctx, const float* x, int64_t n, const LinearWeights* const* ws,
                  float* const* ys, int count);

// Rows of one embedding table widened to f32: out[i, :] = table[ids[i], :].
void embedding_rows(const TensorView& table, const int32_t* ids, int64_t n, float* out);
// out[:] += table[id, :]
void embedding_add_row(const TensorView& table, int64_t id, float* out);

// ---- Convolutions on prepared weights ----------------------------------------------------

// Weights of a stride-1 convolution or a linear layer, prepared once at load for the kernels
// (the CPU kernels' panel layout). Immutable after preparation; may be shared by threads.
using ConvWeights = cpu::PackedConv;

// Each takes the weight as f32 values or as a checkpoint tensor read in place (F32/BF16/F16,
// no widened copy; its shape checked by the caller), see cpu::pack_conv1d.
// From a torch Conv1d weight [c_out, c_in, n_tap] (+ bias [c_out] or null).
ConvWeights prepare_conv1d(const float* w, int c_out, int c_in, int n_tap, int dilation,
                           const float* bias);
ConvWeights prepare_conv1d(const TensorView& w, int c_out, int c_in, int n_tap, int dilation,
                           const float* bias);
// From a torch Linear weight [out, in] (+ bias [out] or null).
ConvWeights prepare_linear(const float* w, int out, int in, const float* bias);
// Linear weights [rows_k, in] of one input stacked in order (q/k/v, gate/up): one GEMM.
ConvWeights prepare_stacked_linear(const TensorView* const* parts, int n_parts, int in,
                                   const float* bias);
// A causal ConvTranspose1d (torch weight [c_in, c_out, kernel], kernel = m·stride) as one
// m-tap stride-1 conv with stride·c_out outputs per input row, see cpu::pack_conv_transpose1d.
ConvWeights prepare_conv_transpose1d(const float* w, int c_in, int c_out, int kernel, int stride,
                                     const float* bias);
ConvWeights prepare_conv_transpose1d(const TensorView& w, int c_in, int c_out, int kernel,
                                     int stride, const float* bias);
// A strided Conv1d (torch weight [c_out, c_in, kernel], kernel = m·stride) as one m-tap
// stride-1 conv over rows of stride·c_in values, see cpu::pack_strided_conv1d.
ConvWeights prepare_strided_conv1d(const TensorView& w, int c_out, int c_in, int kernel, int stride,
                                   const float* bias);
// Adds to prepared conv weights their Winograd form F(m, n_tap) (cpu/conv_winograd.hpp): the
// fast kernels then compute conv1d and conv1d_parts with fewer multiply-adds, at a rounding
// error a few times that of the direct sum; the reference kernels keep the direct sum.
void add_winograd(ConvWeights& w, int m);

// y[t*ldy + o] = (accumulate ? y : 0) + bias[o] + Σ_j Σ_i W[o,i,j]·x[(t + j·d)*ldx + i] for
// t < n_rows; `x` points at the first history row ((n_tap-1)·dilation rows before the first
// current row). x and y must not overlap.
void conv1d(const ExecContext& ctx, const ConvWeights& w, const float* x, int64_t ldx,
            int64_t n_rows, float* y, int64_t ldy, bool accumulate);
// The same weights on several independent inputs (the codec streams of a batch), each
// weight read once for all of them; every part's result equals its own conv1d call.
using ConvRows = cpu::ConvRows;
void conv1d_parts(const ExecContext& ctx, const ConvWeights& w, const ConvRows* parts, int n_parts,
                  bool accumulate);

// ---- Normalisation -------------------------------------------------------------------------

// y = w ⊙ x / sqrt(mean(x²) + eps), row by row over [n, d] (RMSNorm; statistics in f64,
// vectorised: backend/cpu/rms_norm_cpu.hpp).
void rms_norm(const float* x, const float* w, int64_t n, int64_t d, float eps, float* y);
// The same with the rows split over ctx's threads when there are many values (a batched
// step's per-head q/k norms); each row's value is the same either way.
void rms_norm(const ExecContext& ctx, const float* x, const float* w, int64_t n, int64_t d,
              float eps, float* y);
// y = (x − mean) / sqrt(var + eps) · w + b per row (biased variance, as torch LayerNorm).
void layer_norm(const float* x, const float* w, const float* b, int64_t n, int64_t d, float eps,
                float* y);

// ---- Element-wise --------------------------------------------------------------------------

// out = silu(gate) ⊙ up, elementwise over n values (out may alias gate); exp as in
// backend/cpu/silu_cpu.hpp (correctly rounded, vectorised).
void silu_mul(const float* gate, const float* up, int64_t n, float* out);
// The same split over ctx's threads when n is large (a batched step's MLP); the same values
// either way.
void silu_mul(const ExecContext& ctx, const float* gate, const float* up, int64_t n, float* out);
void silu_inplace(float* x, int64_t n);
// Exact (erf) GELU in place.
void gelu_erf_inplace(float* x, int64_t n);
void add_inplace(float* y, const float* x, int64_t n);
// y[t, c] += scale[c] · x[t, c] over [n, d] (layer-scaled residual).
void add_scaled_rows(float* y, const float* x, const float* scale, int64_t n, int64_t d);
// y = min(max(x, lo), hi), n values, in place allowed.
void clamp(const float* x, int64_t n, float lo, float hi, float* y);
// ELU (α = 1), in place allowed.
void elu(const ExecContext& ctx, const float* x, int64_t n, float* y);
// SnakeBeta with per-channel a = exp(alpha), inv_b = 1/(exp(beta)+1e-9):
// y[t,c] = x[t,c] + inv_b[c]·sin(a[c]·x[t,c])²; in place allowed (y == x, ldy == ldx).
void snake_beta(const ExecContext& ctx, const float* x, int64_t ldx, int64_t n_rows, int n_ch,
                const float* a, const float* inv_b, float* y, int64_t ldy);

// ---- Positions and attention -----------------------------------------------------------

// Rotate-half (NeoX) RoPE in place on rows of x [n, ldx]: each row holds n_head heads of
// head_dim values at its start. cos/sin are [n, head_dim/2], one table row per x row (see
// nn/rope.hpp for the tables).
void rope(float* x, int64_t n, int64_t ldx, int64_t n_head, int64_t head_dim, const float* cos,
          const float* sin);

struct AttentionShape {
    int64_t n_head = 0;
    int64_t n_head_kv = 0;  // grouped-query attention: n_head % n_head_kv == 0
    int64_t head_dim = 0;
    int64_t window = 0;  // keys per query, itself included; 0 = the whole causal past
};

// Causal (optionally sliding-window) grouped-query attention, scale 1/sqrt(head_dim),
// softmax in f32. Query row i (q [n, ldq], heads side by side) sits at key position
// q_pos0 + i and sees key rows max(0, q_pos0+i-window+1) .. q_pos0+i of k/v [*, ld_kv]
// (kv heads side by side). out [n, ldo].
void attention(const ExecContext& ctx, const float* q, int64_t ldq, const float* k, const float* v,
               int64_t ld_kv, int64_t n, int64_t q_pos0, const AttentionShape& s, float* out,
               int64_t ldo);

// One decode step of n streams in one parallel region: query row i (q + i·ldq) sits at
// position pos[i] of its own cache k[i]/v[i] (rows [*, ld_kv]) and sees that cache's keys up
// to pos[i] (or the window); its output is row i of out. Each row equals attention() of that
// stream alone (n = 1) bit for bit.
void attention_streams(const ExecContext& ctx, const float* q, int64_t ldq, const float* const* k,
                       const float* const* v, int64_t ld_kv, const int64_t* pos, int64_t n,
                       const AttentionShape& s, float* out, int64_t ldo);

}  // namespace qwen3tts::backend
