#include "nn/tdnn_res2net.hpp"

#include <cmath>
#include <string>

#include "core/error.hpp"

namespace qwen3tts {

void SeRes2NetBlock::load(const WeightMap& weights, const std::string& prefix, int channels,
                          int scale, int se_channels, int kernel, int dilation) {
    if (scale < 2 || channels % scale != 0)
        throw Error(ErrorCode::model, prefix + ": " + std::to_string(channels) +
                                          " channels do not split into res2net_scale " +
                                          std::to_string(scale) + " chunks");
    channels_ = channels;
    scale_ = scale;
    width_ = channels / scale;
    tdnn1_.load(weights, prefix + ".tdnn1.conv", channels, channels, 1, 1, true);
    res2net_.resize(size_t(scale - 1));
    for (int i = 0; i < scale - 1; ++i)
        res2net_[size_t(i)].load(weights,
                                 prefix + ".res2net_block.blocks." + std::to_string(i) + ".conv",
                                 width_, width_, kernel, dilation, true);
    tdnn2_.load(weights, prefix + ".tdnn2.conv", channels, channels, 1, 1, true);
    se_conv1_.load(weights, prefix + ".se_block.conv1", channels, se_channels, 1, 1, true);
    se_conv2_.load(weights, prefix + ".se_block.conv2", se_channels, channels, 1, 1, false);
}

int64_t SeRes2NetBlock::min_rows() const {
    return res2net_.front().min_rows();
}

double SeRes2NetBlock::flops(int64_t n_rows) const {
    double f = tdnn1_.flops(n_rows) + tdnn2_.flops(n_rows);
    for (const auto& r : res2net_) f += r.flops(n_rows);
    return f;
}

// ref: SqueezeExcitationRes2NetBlock.forward, Res2NetBlock.forward, SqueezeExcitationBlock.forward
void SeRes2NetBlock::forward(const float* x, int64_t ldx, int64_t n_rows, float* y, int64_t ldy,
                             const backend::ExecContext& ctx) const {
    const int c = channels_, w = width_;
    const size_t T = size_t(n_rows);
    std::vector<float> a(T * size_t(c));  // tdnn1 output [T, C]
    tdnn1_.forward(x, ldx, n_rows, a.data(), c, ctx);

    // Res2Net: z [T, C], chunk i = columns [i·w, (i+1)·w).
    std::vector<float> z(T * size_t(c));
    std::vector<float> sum(T * size_t(w));  // y_i + z_{i-1}, [T, w]
    for (size_t t = 0; t < T; ++t)
        for (int j = 0; j < w; ++j) z[t * size_t(c) + size_t(j)] = a[t * size_t(c) + size_t(j)];
    res2net_[0].forward(a.data() + w, c, n_rows, z.data() + w, c, ctx);
    for (int i = 2; i < scale_; ++i) {
        const size_t col = size_t(i) * size_t(w);
        for (size_t t = 0; t < T; ++t)
            for (int j = 0; j < w; ++j)
                sum[t * size_t(w) + size_t(j)] = a[t * size_t(c) + col + size_t(j)] +
                                                 z[t * size_t(c) + col - size_t(w) + size_t(j)];
        res2net_[size_t(i - 1)].forward(sum.data(), w, n_rows, z.data() + col, c, ctx);
    }

    std::vector<float>& b = a;  // tdnn2 output [T, C] (tdnn1's buffer is free again)
    tdnn2_.forward(z.data(), c, n_rows, b.data(), c, ctx);

    // Squeeze-excitation: the mean over time is a single row through two k=1 convs.
    std::vector<double> acc(static_cast<size_t>(c), 0.0);
    for (size_t t = 0; t < T; ++t)
        for (int j = 0; j < c; ++j) acc[size_t(j)] += b[t * size_t(c) + size_t(j)];
    std::vector<float> mean(static_cast<size_t>(c));
    for (int j = 0; j < c; ++j) mean[size_t(j)] = float(acc[size_t(j)] / double(n_rows));
    std::vector<float> squeezed(size_t(se_conv1_.c_out()));
    se_conv1_.forward(mean.data(), c, 1, squeezed.data(), se_conv1_.c_out(),
                      {ctx.kernels, nullptr});
    std::vector<float> gate(static_cast<size_t>(c));
    se_conv2_.forward(squeezed.data(), se_conv1_.c_out(), 1, gate.data(), c,
                      {ctx.kernels, nullptr});
    for (float& g : gate) g = 1.0f / (1.0f + std::exp(-g));

    for (size_t t = 0; t < T; ++t) {
        const float* bt = b.data() + t * size_t(c);
        const float* xt = x + int64_t(t) * ldx;
        float* yt = y + int64_t(t) * ldy;
        for (int j = 0; j < c; ++j) yt[j] = bt[j] * gate[size_t(j)] + xt[j];
    }
}

}  // namespace qwen3tts
