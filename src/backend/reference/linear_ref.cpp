#include "backend/reference/linear_ref.hpp"

namespace qwen3tts::backend {

void linear_reference(const float* x, int64_t n, const TensorView& w, const float* bias, float* y) {
    const int64_t out = w.dim(0), in = w.dim(1);
    for (int64_t i = 0; i < n; ++i)
        for (int64_t o = 0; o < out; ++o) {
            float acc = 0.0f;
            for (int64_t k = 0; k < in; ++k) acc += x[i * in + k] * w.at_f32(o * in + k);
            y[i * out + o] = acc + (bias ? bias[o] : 0.0f);
        }
}

}  // namespace qwen3tts::backend
