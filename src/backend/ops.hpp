// The device-neutral operator set the nn/ layer is built on: one signature per op. Activations
// are f32; weights stay in their checkpoint dtype (f32, bf16, f16) and are widened inside the
// kernels. Each op has a plain-loop reference version (the oracle, KernelSet::reference) and a
// fast CPU version (SIMD picked at run time, threads from the context's pool).
#pragma once

#include <cstdint>

#include "core/thread_pool.hpp"
#include "weights/tensor.hpp"

namespace qwen3tts::backend {

enum class KernelSet { reference, fast };

struct ExecContext {
    KernelSet kernels = KernelSet::fast;
    ThreadPool* pool = nullptr;  // may be null: single-threaded
};

// y[n, out] = x[n, in] · W[out, in]ᵀ (+ bias[out]); W any float dtype, bias f32 or null.
void linear(const ExecContext& ctx, const float* x, int64_t n, const TensorView& w,
            const float* bias, float* y);

// Several linears of the same input in one parallel region (q/k/v, gate/up): ys[j] =
// x · ws[j]ᵀ. Fewer thread hand-offs per layer than separate calls.
void linear_group(const ExecContext& ctx, const float* x, int64_t n,
                  const TensorView* const* ws, float* const* ys, int count);

// Rows of one embedding table widened to f32: out[i, :] = table[ids[i], :].
void embedding_rows(const TensorView& table, const int32_t* ids, int64_t n, float* out);
// out[:] += table[id, :]
void embedding_add_row(const TensorView& table, int64_t id, float* out);

// y = w ⊙ x / sqrt(mean(x²) + eps), row by row over [n, d] (Qwen3 RMSNorm, eps inside the root).
void rms_norm(const float* x, const float* w, int64_t n, int64_t d, float eps, float* y);

// out = silu(gate) ⊙ up, elementwise over n values.
void silu_mul(const float* gate, const float* up, int64_t n, float* out);
void silu_inplace(float* x, int64_t n);
void add_inplace(float* y, const float* x, int64_t n);

// Rotate-half (NeoX) RoPE on x[n, n_head, head_dim] in place, token i at position pos0 + i.
// cos/sin tables are [max_pos, head_dim/2] precomputed in f32 (see nn/rope.hpp).
void rope_inplace(float* x, int64_t n, int64_t n_head, int64_t head_dim, int64_t pos0,
                  const float* cos_table, const float* sin_table);

// Causal grouped-query attention for n new tokens at positions pos0..pos0+n-1 against a KV
// cache holding positions 0..pos0+n-1. q [n, n_head, hd]; k/v caches [ctx, n_kv, hd];
// out [n, n_head, hd]. Scale 1/sqrt(hd), softmax in f32.
void attention(const ExecContext& ctx, const float* q, const float* k_cache,
               const float* v_cache, int64_t n, int64_t pos0, int64_t n_head, int64_t n_kv,
               int64_t head_dim, float* out);

}  // namespace qwen3tts::backend
