// SIMD kernels of the quantized linear (quantized_weights.hpp): int8 activations times the
// weights' unsigned codes, summed exactly in int32 per block of 32, then scaled in f32, 16
// weight rows at a time (one per vector lane, as the storage order interleaves them): AVX-512
// VNNI (vpdpbusd) where the CPU has it at the avx512 level, else AVX2 (vpmaddubsw + vpmaddwd,
// the same bits); the generic level runs the reference loops. Each output is computed by one
// thread in a fixed order over its row, whatever n and the thread count, so a row's result
// does not depend on the other rows of the batch.
#pragma once

#include <cstdint>

#include "backend/quantized_weights.hpp"
#include "core/thread_pool.hpp"

namespace qwen3tts::backend {

void linear_quant_cpu(ThreadPool* pool, const QuantizedActivations& x, const QuantizedWeights& w,
                      const float* bias, float* y);

// The same for several weight matrices of one input (q/k/v, gate/up), all of its width: their
// output rows are split across the threads as one range, in one parallel region.
void linear_quant_cpu_group(ThreadPool* pool, const QuantizedActivations& x,
                            const QuantizedWeights* const* ws, const float* const* biases,
                            float* const* ys, int count);

// x [n, cols] quantized per block of 32 into `out` (buffers reused), equal value for value to
// QuantizedActivations::quantize (non-finite blocks included), with AVX-512 at the avx512
// level: the scalar rounding loop was a visible part of a quantized decoder step.
void quantize_activations_cpu(const float* x, int64_t n, int64_t cols, QuantizedActivations& out);

// "avx512-vnni", "avx2" or "generic": the kernel linear_quant_cpu runs now.
const char* linear_quant_cpu_kernel();

}  // namespace qwen3tts::backend
