// Loading helper for the codec layers: a checkpoint tensor, shape-checked by name, widened to
// f32 (releases store F32; BF16/F16 checkpoints are converted here, once, at load).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backend/ops.hpp"

namespace qwen3tts {

class WeightMap;

// Throws Error(model) naming the tensor when it is missing or has another shape.
std::vector<float> load_f32(const WeightMap& weights, const std::string& name,
                            const std::vector<int64_t>& shape);

// A Linear weight [out, in] (+ bias [out] or null) packed for the conv kernels straight from
// the checkpoint's bytes (no widened copy); Error(model) naming the tensor as load_f32.
backend::ConvWeights load_linear(const WeightMap& weights, const std::string& name, int out, int in,
                                 const float* bias = nullptr);

// Several Linear weights [rows_i, in] of the same input, stacked in order and packed as one
// matrix (q/k/v, gate/up): one GEMM instead of several. Bias: [Σ rows_i] or null.
backend::ConvWeights load_stacked_linear(const WeightMap& weights,
                                         const std::vector<std::string>& names,
                                         const std::vector<int>& rows, int in,
                                         const float* bias = nullptr);

}  // namespace qwen3tts
