#include "nn/codec_convnext.hpp"

#include <array>
#include <cmath>

#include "core/error.hpp"
#include "nn/codec_weights.hpp"

namespace qwen3tts {

void CodecConvNeXtBlock::load(const WeightMap& weights, const std::string& prefix, int dim) {
    dim_ = dim;
    dwconv_.load(weights, prefix + ".dwconv.conv", dim, 7);
    norm_w_ = load_f32(weights, prefix + ".norm.weight", {dim});
    norm_b_ = load_f32(weights, prefix + ".norm.bias", {dim});
    gamma_ = load_f32(weights, prefix + ".gamma", {dim});
    const auto b1 = load_f32(weights, prefix + ".pwconv1.bias", {4 * dim});
    const auto b2 = load_f32(weights, prefix + ".pwconv2.bias", {dim});
    pw1_ = load_linear(weights, prefix + ".pwconv1.weight", 4 * dim, dim, b1.data());
    pw2_ = load_linear(weights, prefix + ".pwconv2.weight", dim, 4 * dim, b2.data());
}

void CodecConvNeXtBlock::forward(float* x, int64_t ldx, int64_t n_rows, float* state, float* y,
                                 int64_t ldy, float* scratch,
                                 const backend::ExecContext& ctx) const {
    const CausalConvIo io{x, ldx, n_rows, state, y, ldy};
    forward_parts(&io, &scratch, 1, ctx);
}

void CodecConvNeXtBlock::forward_parts(const CausalConvIo* io, float* const* scratch, int n,
                                       const backend::ExecContext& ctx) const {
    QWEN3TTS_ASSERT(n >= 0 && n <= kMaxBatchParts);
    const int d = dim_;
    std::array<backend::ConvRows, kMaxBatchParts> pw1, pw2;
    for (int s = 0; s < n; ++s) {
        const CausalConvIo& a = io[s];
        float* h = scratch[s];                          // [n_rows, dim]
        float* h4 = scratch[s] + size_t(a.n_rows) * d;  // [n_rows, 4·dim]
        dwconv_.forward(a.x, a.ldx, a.n_rows, a.state, h, d);
        for (int64_t t = 0; t < a.n_rows; ++t) {  // LayerNorm, eps 1e-6, biased variance
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
        pw1[size_t(s)] = {h, d, a.n_rows, h4, 4 * d};
        pw2[size_t(s)] = {h4, 4 * d, a.n_rows, h, d};
    }
    backend::conv1d_parts(ctx, pw1_, pw1.data(), n, false);
    for (int s = 0; s < n; ++s) {
        float* h4 = scratch[s] + size_t(io[s].n_rows) * d;
        const int64_t n4 = io[s].n_rows * 4 * d;
        for (int64_t i = 0; i < n4; ++i)  // exact GELU
            h4[i] = 0.5f * h4[i] * (1.0f + std::erf(h4[i] * 0.70710678118654752440f));
    }
    backend::conv1d_parts(ctx, pw2_, pw2.data(), n, false);
    for (int s = 0; s < n; ++s) {
        const CausalConvIo& a = io[s];
        const float* h = scratch[s];
        for (int64_t t = 0; t < a.n_rows; ++t)
            for (int c = 0; c < d; ++c)
                a.y[t * a.ldy + c] = a.x[t * a.ldx + c] + gamma_[size_t(c)] * h[t * d + c];
    }
}

}  // namespace qwen3tts
