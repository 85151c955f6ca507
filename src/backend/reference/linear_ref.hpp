// Plain-loop linear layer: the oracle the SIMD kernels are tested against.
#pragma once

#include <cstdint>

#include "core/tensor_view.hpp"

namespace qwen3tts::backend {

void linear_reference(const float* x, int64_t n, const TensorView& w, const float* bias, float* y);

}  // namespace qwen3tts::backend
