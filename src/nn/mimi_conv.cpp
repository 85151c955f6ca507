#include "nn/mimi_conv.hpp"

#include <cmath>
#include <cstring>
#include <vector>

#include "backend/ops.hpp"
#include "core/error.hpp"
#include "nn/codec_weights.hpp"

namespace qwen3tts {

void MimiStridedConv1d::load(const WeightMap& weights, const std::string& prefix, int c_in,
                             int c_out, int kernel, int stride, bool bias) {
    if (stride <= 0 || kernel < stride || kernel % stride != 0)
        throw Error(ErrorCode::model, prefix + ": strided conv kernel " + std::to_string(kernel) +
                                          " is not a multiple of its stride " +
                                          std::to_string(stride));
    c_in_ = c_in;
    c_out_ = c_out;
    kernel_ = kernel;
    stride_ = stride;
    const auto w = load_f32(weights, prefix + ".weight", {c_out, c_in, kernel});
    std::vector<float> b;
    if (bias) b = load_f32(weights, prefix + ".bias", {c_out});
    // Regroup taps: w'[o, r·c_in + i, tap b] = w[o, i, b·s + r] (block b, row r within it).
    const int m = kernel / stride;
    const int cin_b = stride * c_in;
    std::vector<float> wb(size_t(c_out) * size_t(cin_b) * size_t(m));
    for (int o = 0; o < c_out; ++o)
        for (int bk = 0; bk < m; ++bk)
            for (int r = 0; r < stride; ++r)
                for (int i = 0; i < c_in; ++i)
                    wb[(size_t(o) * cin_b + size_t(r) * c_in + size_t(i)) * m + size_t(bk)] =
                        w[(size_t(o) * c_in + size_t(i)) * kernel + size_t(bk * stride + r)];
    w_ = backend::prepare_conv1d(wb.data(), c_out, cin_b, m, 1, bias ? b.data() : nullptr);
}

void MimiStridedConv1d::init_state(float* state, const float* first_row, bool replicate) const {
    for (int64_t r = 0; r < history(); ++r)
        for (int i = 0; i < c_in_; ++i) state[r * c_in_ + i] = replicate ? first_row[i] : 0.0f;
}

void MimiStridedConv1d::forward(float* x, int64_t n_in, float* state, float* y, int64_t ldy,
                                const backend::ExecContext& ctx) const {
    QWEN3TTS_ASSERT(n_in % stride_ == 0);
    const int64_t h = history();
    const size_t row = sizeof(float) * size_t(c_in_);
    std::memcpy(x - h * c_in_, state, row * size_t(h));
    backend::conv1d(ctx, w_, x - h * c_in_, int64_t(stride_) * c_in_, n_in / stride_, y, ldy,
                    false);
    // The last h rows of [x - h, x + n_in) (partly old history when n_in < h).
    std::memmove(state, x + (n_in - h) * c_in_, row * size_t(h));
}

}  // namespace qwen3tts
