// SIMD linear layer for x86-64: AVX-512 or AVX2+FMA+F16C chosen per call from
// cpu::active_isa() (the reference loops at the generic level), weights read in their stored
// dtype (bf16/f16/f32) and widened in registers, f32 accumulation, output rows split across
// the pool's threads. Decode (n = 1) is bound by weight bandwidth,
// so each block of 4 weight rows is read from memory once and reused from cache for all n
// input rows.
#pragma once

#include <cstdint>

#include "core/tensor_view.hpp"
#include "core/thread_pool.hpp"

namespace qwen3tts::backend {

void linear_cpu(ThreadPool* pool, const float* x, int64_t n, const TensorView& w, const float* bias,
                float* y);

// The same for several weight matrices sharing the input x: their output rows are split
// across the threads as one range.
void linear_cpu_group(ThreadPool* pool, const float* x, int64_t n, const TensorView* const* ws,
                      float* const* ys, int count);

// The opt-in approximate path (ExecContext::bf16_activations): each input row rounded to bf16
// (nearest even), then vdpbf16ps on the raw bf16 weights with f32 accumulation, 32 weights per
// instruction, output rows of the matrices split across the threads as one range. Returns
// false, doing nothing, where it does not apply: CPU without AVX512_BF16 or active level below
// avx512, weights not bf16, or a width not a multiple of 32.
bool linear_cpu_bf16_dot(ThreadPool* pool, const float* x, int64_t n, const TensorView* const* ws,
                         const float* const* biases, float* const* ys, int count);

// Which instruction set linear_cpu uses now: "avx512", "avx2" or "generic".
const char* linear_cpu_isa();

}  // namespace qwen3tts::backend
