// Token selection exactly in the order of Hugging Face generate (spec talker.md §6):
// repetition penalty → min-new-tokens EOS mask → suppressed ids → (sampling only)
// temperature → top-k → top-p → softmax → draw; greedy = argmax (first index on ties) after
// the same logits processors. The RNG (core/rng.hpp) is defined bit for bit by our code, so
// the same seed gives the same tokens with any compiler and standard library.
#pragma once

#include <cstdint>
#include <vector>

#include "core/rng.hpp"

namespace qwen3tts {

struct SamplingParams {
    bool do_sample = true;
    float temperature = 0.9f;
    int top_k = 50;
    float top_p = 1.0f;
    float repetition_penalty = 1.0f;

    void validate(const char* who) const;  // throws Error naming the bad value
};

// HF RepetitionPenaltyLogitsProcessor over the distinct ids in `seen`: divides positive
// logits by `penalty`, multiplies negative ones.
void apply_repetition_penalty(float* logits, const std::vector<int32_t>& distinct_ids,
                              float penalty);

// The talker's processors before any warper (spec talker.md §6.1 steps 1-3), in place on the
// raw codec_head logits[vocab]: repetition penalty over the distinct codebook-0 ids drawn so
// far, EOS masked while fewer than min_new_tokens were drawn, and the control ids
// [vocab - 1024, vocab) other than EOS suppressed.
void apply_talker_processors(float* logits, int64_t vocab, const std::vector<int32_t>& distinct,
                             int64_t n_drawn, float repetition_penalty, int min_new_tokens,
                             int eos);

class Sampler {
  public:
    explicit Sampler(uint64_t seed = 0) : rng_(seed) {}
    void reseed(uint64_t seed) { rng_.reseed(seed); }

    // The sampling warpers in place: temperature, top-k, top-p; removed tokens become -inf.
    // Throws Error on a NaN or +inf logit, or when every logit is -inf.
    void warp(float* logits, int64_t vocab, const SamplingParams& p);

    // Picks a token from processed logits[vocab] (modified in place): argmax when
    // !p.do_sample, else warp() and an inverse-CDF draw. Never returns a -inf (suppressed or
    // removed) token; throws Error when no token can be chosen.
    int32_t choose(float* logits, int64_t vocab, const SamplingParams& p);

  private:
    int32_t draw(const float* logits, int64_t vocab);

    Rng rng_;
    std::vector<float> sorted_;
    std::vector<int32_t> order_;
    std::vector<double> weights_;  // draw's exp(z - max)
};

}  // namespace qwen3tts
