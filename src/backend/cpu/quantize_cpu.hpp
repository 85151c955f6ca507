// SIMD row quantizers for quantized_weights.hpp: the portable rule (quant_step, q4's candidate
// search, round to nearest even, clamp) on 16 blocks at once with AVX-512 (8 with AVX2), one
// block per vector lane for the extremes, steps and sums, so a model's weights quantize at load
// in well under a second. Codes and scales equal quantize_row_portable's exactly
// (tests/ops/test_quantize_pinned.cpp, test_linear_quant_ops.cpp).
#pragma once

#include <cstdint>

#include "backend/quantized_weights.hpp"

namespace qwen3tts::backend {

// Whether quantize_row_cpu runs at the active SIMD level (avx2 or avx512).
bool quantize_row_cpu_available();

void quantize_row_cpu(const TensorView& w, int64_t r, QuantFormat format, uint8_t* codes,
                      uint16_t* scales);

}  // namespace qwen3tts::backend
