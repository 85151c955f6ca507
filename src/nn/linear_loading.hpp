// How a model keeps the weights of the linear layers its decoding loop reads every frame
// (decoder layers, output heads).
#pragma once

#include <optional>

#include "backend/linear_weights.hpp"
#include "weights/safetensors.hpp"

namespace qwen3tts {

// `stored` (a tensor of `w`) quantized to `quant` when given; else, when it is read through a
// memory mapping and `copy_mapped`, its bytes copied into huge-page memory
// (LinearWeights::copied: the mapping's 4 KiB pages are slow to stream); else the stored tensor
// itself. A copy's mapped pages are given back to the page cache (WeightMap::release_pages), so
// the process holds the weights once.
backend::LinearWeights load_linear(const WeightMap& w, const TensorView& stored,
                                   std::optional<backend::QuantFormat> quant, ThreadPool* pool,
                                   bool copy_mapped = true);

}  // namespace qwen3tts
