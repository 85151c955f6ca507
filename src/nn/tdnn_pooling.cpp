#include "nn/tdnn_pooling.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "nn/codec_weights.hpp"

namespace qwen3tts {

namespace {

constexpr double kStdEps = 1e-12;  // AttentiveStatisticsPooling.eps (clamp under the root)

// Weighted mean and std over time of x [T, C]: weight(t, c) gives the weight of frame t for
// channel c. ref: AttentiveStatisticsPooling._compute_statistics
template <class Weight>
void weighted_stats(const float* x, int64_t ldx, int64_t n_rows, int n_ch, Weight weight,
                    float* mean, float* stddev) {
    std::vector<double> mu(static_cast<size_t>(n_ch), 0.0), var(size_t(n_ch), 0.0);
    for (int64_t t = 0; t < n_rows; ++t) {
        const float* xt = x + t * ldx;
        for (int c = 0; c < n_ch; ++c) mu[size_t(c)] += double(weight(t, c)) * xt[c];
    }
    for (int64_t t = 0; t < n_rows; ++t) {
        const float* xt = x + t * ldx;
        for (int c = 0; c < n_ch; ++c) {
            const double d = double(xt[c]) - mu[size_t(c)];
            var[size_t(c)] += double(weight(t, c)) * d * d;
        }
    }
    for (int c = 0; c < n_ch; ++c) {
        mean[c] = float(mu[size_t(c)]);
        stddev[c] = float(std::sqrt(std::max(var[size_t(c)], kStdEps)));
    }
}

}  // namespace

void AttentiveStatsPooling::load(const WeightMap& weights, const std::string& prefix, int channels,
                                 int attention_channels) {
    channels_ = channels;
    attention_ = attention_channels;
    const int c = channels, a = attention_channels;
    const auto w = load_f32(weights, prefix + ".tdnn.conv.weight", {a, 3 * c, 1});
    tdnn_bias_ = load_f32(weights, prefix + ".tdnn.conv.bias", {a});
    std::vector<float> w_frame(size_t(a) * size_t(c));
    tdnn_context_w_.assign(size_t(a) * size_t(2 * c), 0.0f);
    for (int o = 0; o < a; ++o) {
        const float* row = w.data() + size_t(o) * size_t(3 * c);
        std::copy(row, row + c, w_frame.begin() + std::ptrdiff_t(size_t(o) * size_t(c)));
        std::copy(row + c, row + 3 * c,
                  tdnn_context_w_.begin() + std::ptrdiff_t(size_t(o) * size_t(2 * c)));
    }
    tdnn_frame_ = backend::prepare_linear(w_frame.data(), a, c, nullptr);
    conv_.load(weights, prefix + ".conv", a, c, 1, 1, false);
}

double AttentiveStatsPooling::flops(int64_t n_rows) const {
    return tdnn_frame_.flops(n_rows) + conv_.flops(n_rows);
}

// ref: AttentiveStatisticsPooling.forward (batch of one, full-length mask)
std::vector<float> AttentiveStatsPooling::forward(const float* x, int64_t ldx, int64_t n_rows,
                                                  const backend::ExecContext& ctx) const {
    const int c = channels_, a = attention_;
    const size_t T = size_t(n_rows);

    // Global context with uniform weights mask/total = 1/T (computed in the activation dtype).
    const float uniform = 1.0f / float(n_rows);
    std::vector<float> context(size_t(2 * c));  // cat(μ, σ)
    weighted_stats(
        x, ldx, n_rows, c, [uniform](int64_t, int) { return uniform; }, context.data(),
        context.data() + c);

    // h = tanh(ReLU(W[:, :C]·x_t + b + W[:, C:]·cat(μ, σ)))   [T, A]
    std::vector<float> bias(static_cast<size_t>(a));
    for (int o = 0; o < a; ++o) {
        const float* wr = tdnn_context_w_.data() + size_t(o) * size_t(2 * c);
        double s = tdnn_bias_[size_t(o)];
        for (int j = 0; j < 2 * c; ++j) s += double(wr[j]) * context[size_t(j)];
        bias[size_t(o)] = float(s);
    }
    std::vector<float> h(T * size_t(a));
    backend::conv1d(ctx, tdnn_frame_, x, ldx, n_rows, h.data(), a, false);
    for (size_t t = 0; t < T; ++t)
        for (int o = 0; o < a; ++o) {
            float& v = h[t * size_t(a) + size_t(o)];
            v = std::tanh(std::max(v + bias[size_t(o)], 0.0f));
        }

    // α = softmax over time, per channel, of conv(h)   [T, C]
    std::vector<float> att(T * size_t(c));
    conv_.forward(h.data(), a, n_rows, att.data(), c, ctx);
    std::vector<float> peak(static_cast<size_t>(c), -INFINITY);
    for (size_t t = 0; t < T; ++t)
        for (int j = 0; j < c; ++j)
            peak[size_t(j)] = std::max(peak[size_t(j)], att[t * size_t(c) + size_t(j)]);
    std::vector<double> denom(static_cast<size_t>(c), 0.0);
    for (size_t t = 0; t < T; ++t)
        for (int j = 0; j < c; ++j) {
            float& v = att[t * size_t(c) + size_t(j)];
            v = std::exp(v - peak[size_t(j)]);
            denom[size_t(j)] += v;
        }
    for (size_t t = 0; t < T; ++t)
        for (int j = 0; j < c; ++j)
            att[t * size_t(c) + size_t(j)] =
                float(att[t * size_t(c) + size_t(j)] / denom[size_t(j)]);

    std::vector<float> pooled(size_t(2 * c));
    const float* alpha = att.data();
    weighted_stats(
        x, ldx, n_rows, c,
        [alpha, c](int64_t t, int j) { return alpha[size_t(t) * size_t(c) + size_t(j)]; },
        pooled.data(), pooled.data() + c);
    return pooled;
}

}  // namespace qwen3tts
