#include "nn/rope.hpp"

#include <cmath>

namespace qwen3tts {

// ref: transformers _compute_default_rope_parameters; Qwen3TTSRotaryEmbedding.forward
RopeFrequencies::RopeFrequencies(double theta, int64_t head_dim) {
    inv_freq_.resize(size_t(head_dim / 2));
    for (int64_t i = 0; i < head_dim / 2; ++i)
        inv_freq_[size_t(i)] = 1.0f / std::pow(float(theta), float(2 * i) / float(head_dim));
}

void RopeFrequencies::tables(int64_t pos0, int64_t n, float* cos_out, float* sin_out) const {
    const int64_t h = half();
    for (int64_t p = 0; p < n; ++p)
        for (int64_t i = 0; i < h; ++i) {
            const float angle = float(pos0 + p) * inv_freq_[size_t(i)];
            cos_out[p * h + i] = float(std::cos(double(angle)));
            sin_out[p * h + i] = float(std::sin(double(angle)));
        }
}

}  // namespace qwen3tts
