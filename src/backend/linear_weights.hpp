// The weight matrix of a linear layer as the linear ops take it: a view of the checkpoint's
// tensor in its stored dtype (bf16/f16/f32, usually memory-mapped), a copy of those bytes in
// huge-page memory, or a copy quantized at load (quantized_weights.hpp). Cheap to copy;
// immutable; shared by threads.
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
    // The stored bytes copied into memory of this process backed by 2 MiB pages (read with
    // pread from a mapped file). A decoding step streams every weight once: through a
    // mapping's 4 KiB pages that is a TLB miss per 4 KiB, which on the project's VMs (nested
    // paging) made the 0.6B talker 2-2.5x slower than from huge pages (docs/benchmarks.md).
    static LinearWeights copied(const TensorView& w, ThreadPool* pool);

    const QuantizedWeights* quantized() const { return quantized_.get(); }
    // The float weights: the checkpoint's tensor or its copy (for a quantized one, the
    // checkpoint's tensor).
    const TensorView& view() const { return view_; }
    int64_t rows() const { return view_.dim(0); }
    int64_t cols() const { return view_.dim(1); }
    // Bytes a product reads: the quantized codes and scales, or the stored tensor.
    size_t nbytes() const { return quantized_ ? quantized_->nbytes() : view_.nbytes(); }

  private:
    TensorView view_;
    std::shared_ptr<const QuantizedWeights> quantized_;
    std::shared_ptr<const HugeBuffer<uint8_t>> copy_;  // what view_ points into, when copied
};

}  // namespace qwen3tts::backend
