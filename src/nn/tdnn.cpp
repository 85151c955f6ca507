#include "nn/tdnn.hpp"

#include <algorithm>
#include <cstring>

#include "core/error.hpp"
#include "nn/codec_weights.hpp"

namespace qwen3tts {

void ReflectConv1d::load(const WeightMap& weights, const std::string& prefix, int c_in, int c_out,
                         int kernel, int dilation, bool relu) {
    const auto w = load_f32(weights, prefix + ".weight", {c_out, c_in, kernel});
    const auto b = load_f32(weights, prefix + ".bias", {c_out});
    w_ = backend::prepare_conv1d(w.data(), c_out, c_in, kernel, dilation, b.data());
    relu_ = relu;
}

void relu_rows(float* y, int64_t ld, int64_t n_rows, int n_col) {
    for (int64_t t = 0; t < n_rows; ++t) {
        float* row = y + t * ld;
        for (int c = 0; c < n_col; ++c) row[c] = std::max(row[c], 0.0f);
    }
}

// ref: torch Conv1d._conv_forward with padding_mode="reflect":
//      F.conv1d(F.pad(x, _reversed_padding_repeated_twice, mode="reflect"), w, b, dilation=d)
void ReflectConv1d::forward(const float* x, int64_t ldx, int64_t n_rows, float* y, int64_t ldy,
                            const backend::ExecContext& ctx) const {
    const int c = w_.c_in;
    const int64_t pl = pad_left(), pr = pad_right();
    if (pl == 0 && pr == 0) {
        backend::conv1d(ctx, w_, x, ldx, n_rows, y, ldy, false);
    } else {
        QWEN3TTS_ASSERT(n_rows >= min_rows());
        // padded[j] = x[reflect(j - pl)], j in [0, pl + T + pr), dense rows of c_in.
        std::vector<float> padded(size_t(pl + n_rows + pr) * size_t(c));
        for (int64_t j = 0; j < pl + n_rows + pr; ++j) {
            int64_t src = j - pl;
            if (src < 0) src = -src;
            if (src >= n_rows) src = 2 * (n_rows - 1) - src;
            std::memcpy(padded.data() + size_t(j) * size_t(c), x + src * ldx,
                        sizeof(float) * size_t(c));
        }
        backend::conv1d(ctx, w_, padded.data(), c, n_rows, y, ldy, false);
    }
    if (relu_) relu_rows(y, ldy, n_rows, w_.c_out);
}

}  // namespace qwen3tts
