#include "nn/snake_beta.hpp"

#include <cmath>

#include "backend/ops.hpp"
#include "nn/codec_weights.hpp"

namespace qwen3tts {

void SnakeBeta::load(const WeightMap& weights, const std::string& prefix, int dim) {
    a_ = load_f32(weights, prefix + ".alpha", {dim});
    inv_b_ = load_f32(weights, prefix + ".beta", {dim});
    for (auto& v : a_) v = std::exp(v);
    for (auto& v : inv_b_) v = 1.0f / (std::exp(v) + 1e-9f);
}

void SnakeBeta::forward(const float* x, int64_t ldx, int64_t n_rows, float* y, int64_t ldy,
                        const backend::ExecContext& ctx) const {
    backend::snake_beta(ctx, x, ldx, n_rows, dim(), a_.data(), inv_b_.data(), y, ldy);
}

}  // namespace qwen3tts
