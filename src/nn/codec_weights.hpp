// Loading helpers for the codec layers: a checkpoint tensor, shape-checked by name, widened to
// f32 (releases store F32; BF16/F16 checkpoints are converted here, once, at load) or packed for
// the kernels. Each gives its tensor's mapped pages back once converted (WeightMap::
// release_pages): the checkpoint's bytes are not read again, and would otherwise sit in the
// process's memory beside their packed copies until the whole codec is loaded (~200 MB of a
// BF16 speech tokenizer, twice that in F32).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backend/ops.hpp"
#include "weights/safetensors.hpp"

namespace qwen3tts {

// Throws Error(model) naming the tensor when it is missing or has another shape.
std::vector<float> load_f32(const WeightMap& weights, const std::string& name,
                            const std::vector<int64_t>& shape);

// pack(tensor) of the float tensor `name` (shape-checked as load_f32), which must copy what it
// keeps; then the tensor's pages are given back.
template <typename Pack>
auto load_packed(const WeightMap& weights, const std::string& name,
                 const std::vector<int64_t>& shape, Pack&& pack) {
    const TensorView& t = weights.get_float(name, shape);
    auto packed = pack(t);
    weights.release_pages(t);
    return packed;
}

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
