// The weight matrix of a linear layer as the linear ops take it: a view of the checkpoint's
// tensor in its stored dtype (bf16/f16/f32, usually memory-mapped), or a copy quantized at
// load (quantized_weights.hpp). Cheap to copy; immutable; shared by threads.
#pragma once

#include <memory>
#include <optional>

#include "backend/quantized_weights.hpp"
#include "core/tensor_view.hpp"
#include "core/thread_pool.hpp"

namespace qwen3tts::backend {

class LinearWeights {
  public:
    LinearWeights() = default;
    // As stored; `w` must outlive this (it points into the checkpoint).
    explicit LinearWeights(const TensorView& w) : view_(w) {}
    // Quantized to `format` when given, else as stored.
    LinearWeights(const TensorView& w, std::optional<QuantFormat> format, ThreadPool* pool);

    const QuantizedWeights* quantized() const { return quantized_.get(); }
    const TensorView& view() const { return view_; }  // the checkpoint tensor either way
    int64_t rows() const { return view_.dim(0); }
    int64_t cols() const { return view_.dim(1); }
    // Bytes a product reads: the quantized codes and scales, or the stored tensor.
    size_t nbytes() const { return quantized_ ? quantized_->nbytes() : view_.nbytes(); }

  private:
    TensorView view_;
    std::shared_ptr<const QuantizedWeights> quantized_;
};

}  // namespace qwen3tts::backend
