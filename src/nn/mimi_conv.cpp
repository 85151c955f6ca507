#include "nn/mimi_conv.hpp"

#include <cmath>
#include <cstring>
#include <vector>

#include "backend/ops.hpp"
#include "core/error.hpp"
#include "nn/codec_weights.hpp"
#include "weights/safetensors.hpp"

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
    std::vector<float> b;
    if (bias) b = load_f32(weights, prefix + ".bias", {c_out});
    // Taps regrouped into blocks of stride input rows while packing (no widened copy).
    w_ = load_packed(weights, prefix + ".weight", {c_out, c_in, kernel}, [&](const TensorView& t) {
        return backend::prepare_strided_conv1d(t, c_out, c_in, kernel, stride,
                                               bias ? b.data() : nullptr);
    });
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
