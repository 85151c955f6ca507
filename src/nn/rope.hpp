// Rotate-half RoPE angles, computed in f32 as Hugging Face does: inv_freq[i] = 1/θ^(2i/d),
// angle = f32(pos)·inv_freq[i]; cos/sin of the f32 angle rounded to f32. The one RoPE table of
// every model (talker, code predictor, codec decoder and encoder transformers); the rotation
// itself is backend::rope. Tables are produced per forward call for the positions it
// covers (a few hundred trig calls), so the shared model holds no position-dependent state.
#pragma once

#include <cstdint>
#include <vector>

namespace qwen3tts {

class RopeFrequencies {
  public:
    RopeFrequencies() = default;
    RopeFrequencies(double theta, int64_t head_dim);

    int64_t half() const { return int64_t(inv_freq_.size()); }
    // cos/sin [n, half] for positions pos0 .. pos0+n-1.
    void tables(int64_t pos0, int64_t n, float* cos_out, float* sin_out) const;

  private:
    std::vector<float> inv_freq_;
};

}  // namespace qwen3tts
