#include "backend/linear_weights.hpp"

namespace qwen3tts::backend {

LinearWeights::LinearWeights(const TensorView& w, std::optional<QuantFormat> format,
                             ThreadPool* pool)
    : view_(w) {
    if (format)
        quantized_ = std::make_shared<const QuantizedWeights>(quantize_weights(w, *format, pool));
}

}  // namespace qwen3tts::backend
