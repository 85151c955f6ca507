#include "nn/codec_convnext.hpp"

#include <cmath>

#include "nn/codec_weights.hpp"

namespace qwen3tts {

void CodecConvNeXtBlock::load(const WeightMap& weights, const std::string& prefix, int dim) {
    dim_ = dim;
    dwconv_.load(weights, prefix + ".dwconv.conv", dim, 7);
    norm_w_ = load_f32(weights, prefix + ".norm.weight", {dim});
    norm_b_ = load_f32(weights, prefix + ".norm.bias", {dim});
    gamma_ = load_f32(weights, prefix + ".gamma", {dim});
    const auto w1 = load_f32(weights, prefix + ".pwconv1.weight", {4 * dim, dim});
    const auto b1 = load_f32(weights, prefix + ".pwconv1.bias", {4 * dim});
    const auto w2 = load_f32(weights, prefix + ".pwconv2.weight", {dim, 4 * dim});
    const auto b2 = load_f32(weights, prefix + ".pwconv2.bias", {dim});
    pw1_ = backend::prepare_linear(w1.data(), 4 * dim, dim, b1.data());
    pw2_ = backend::prepare_linear(w2.data(), dim, 4 * dim, b2.data());
}

void CodecConvNeXtBlock::forward(float* x, int64_t ldx, int64_t n_rows, float* state, float* y,
                                 int64_t ldy, float* scratch,
                                 const backend::ExecContext& ctx) const {
    const int d = dim_;
    float* h = scratch;                        // [n_rows, dim]
    float* h4 = scratch + size_t(n_rows) * d;  // [n_rows, 4·dim]
    dwconv_.forward(x, ldx, n_rows, state, h, d);
    for (int64_t t = 0; t < n_rows; ++t) {  // LayerNorm, eps 1e-6, biased variance
        float* r = h + t * d;
        double mean = 0;
        for (int c = 0; c < d; ++c) mean += r[c];
        mean /= d;
        double var = 0;
        for (int c = 0; c < d; ++c) var += (r[c] - mean) * (r[c] - mean);
        var /= d;
        const float inv = float(1.0 / std::sqrt(var + 1e-6));
        const float m = float(mean);
        for (int c = 0; c < d; ++c)
            r[c] = (r[c] - m) * inv * norm_w_[size_t(c)] + norm_b_[size_t(c)];
    }
    backend::conv1d(ctx, pw1_, h, d, n_rows, h4, 4 * d, false);
    const int64_t n4 = n_rows * 4 * d;
    for (int64_t i = 0; i < n4; ++i)  // exact GELU
        h4[i] = 0.5f * h4[i] * (1.0f + std::erf(h4[i] * 0.70710678118654752440f));
    backend::conv1d(ctx, pw2_, h4, 4 * d, n_rows, h, d, false);
    for (int64_t t = 0; t < n_rows; ++t)
        for (int c = 0; c < d; ++c)
            y[t * ldy + c] = x[t * ldx + c] + gamma_[size_t(c)] * h[t * d + c];
}

}  // namespace qwen3tts
