// The plain-loop oracle of the quantized linear: the same integer block sums as the kernels
// (exact), combined in double, so the SIMD kernels differ from it only by f32 rounding.
#pragma once

#include <cstdint>

#include "backend/quantized_weights.hpp"

namespace qwen3tts::backend {

// y[i, r] = Σ_b scale_w[r, b] · scale_x[i, b] · Σ_j (code[r, j] - offset) · q_x[i, j] (+ bias)
void linear_quant_reference(const QuantizedActivations& x, const QuantizedWeights& w,
                            const float* bias, float* y);

}  // namespace qwen3tts::backend
