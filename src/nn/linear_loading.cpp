#include "nn/linear_loading.hpp"

namespace qwen3tts {

backend::LinearWeights load_linear(const WeightMap& w, const TensorView& stored,
                                   std::optional<backend::QuantFormat> quant, ThreadPool* pool,
                                   bool copy_mapped) {
    if (!quant && (!copy_mapped || !w.is_mapped(stored))) return backend::LinearWeights(stored);
    backend::LinearWeights weights = quant ? backend::LinearWeights(stored, quant, pool)
                                           : backend::LinearWeights::copied(stored, pool);
    w.release_pages(stored);
    return weights;
}

}  // namespace qwen3tts
