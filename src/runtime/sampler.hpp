// Token selection exactly in the order of Hugging Face generate (spec talker.md §6):
// repetition penalty → min-new-tokens EOS mask → suppressed ids → (sampling only)
// temperature → top-k → top-p → softmax → draw; greedy = argmax (first index on ties) after
// the same logits processors. The RNG is seeded, so the same seed gives the same tokens.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace qwen3tts {

struct SamplingParams {
    bool do_sample = true;
    float temperature = 0.9f;
    int top_k = 50;
    float top_p = 1.0f;
    float repetition_penalty = 1.0f;

    void validate(const char* who) const;  // throws Error naming the bad value
};

class Sampler {
public:
    explicit Sampler(uint64_t seed = 0) : rng_(seed) {}
    void reseed(uint64_t seed) { rng_.seed(seed); }

    // Warps logits[vocab] in place (temperature, top-k, top-p) and picks a token.
    int32_t choose(float* logits, int64_t vocab, const SamplingParams& p);

private:
    std::mt19937_64 rng_;
    std::vector<float> sorted_;
};

// HF RepetitionPenaltyLogitsProcessor over the distinct ids in `seen`: divides positive
// logits by `penalty`, multiplies negative ones.
void apply_repetition_penalty(float* logits, const std::vector<int32_t>& distinct_ids,
                              float penalty);

}  // namespace qwen3tts
