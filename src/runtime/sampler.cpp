#include "runtime/sampler.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "core/error.hpp"

namespace qwen3tts {

namespace {

// NaN or +inf would make HF's softmax NaN, which torch.multinomial refuses; -inf is a removed
// token. At least one finite logit must remain.
void check_logits(const float* z, int64_t vocab) {
    bool any_finite = false;
    for (int64_t i = 0; i < vocab; ++i) {
        if (std::isnan(z[i]) || z[i] == INFINITY)
            throw Error(ErrorCode::internal, "sampler: non-finite logit " + std::to_string(z[i]) +
                                                 " at index " + std::to_string(i));
        any_finite |= z[i] != -INFINITY;
    }
    if (!any_finite)
        throw Error(ErrorCode::internal, "sampler: no token can be chosen: all " +
                                             std::to_string(vocab) +
                                             " logits are -inf (every token suppressed)");
}

}  // namespace

void SamplingParams::validate(const char* who) const {
    auto bad = [&](const std::string& what) {
        throw Error(ErrorCode::invalid_argument, std::string(who) + ": " + what);
    };
    if (!(temperature > 0.0f) || !std::isfinite(temperature))
        bad("temperature must be > 0, got " + std::to_string(temperature));
    if (top_k < 0) bad("top-k must be >= 0 (0 disables it), got " + std::to_string(top_k));
    if (!(top_p > 0.0f && top_p <= 1.0f))
        bad("top-p must be in (0, 1], got " + std::to_string(top_p));
    if (!(repetition_penalty > 0.0f) || !std::isfinite(repetition_penalty))
        bad("repetition penalty must be > 0, got " + std::to_string(repetition_penalty));
}

void apply_repetition_penalty(float* logits, const std::vector<int32_t>& distinct_ids,
                              float penalty) {
    if (penalty == 1.0f) return;
    for (int32_t id : distinct_ids) {
        float& z = logits[id];
        z = z < 0 ? z * penalty : z / penalty;
    }
}

// ref: transformers RepetitionPenaltyLogitsProcessor, MinNewTokensLengthLogitsProcessor,
// SuppressTokensLogitsProcessor (order of _get_logits_processor)
void apply_talker_processors(float* logits, int64_t vocab, const std::vector<int32_t>& distinct,
                             int64_t n_drawn, float repetition_penalty, int min_new_tokens,
                             int eos) {
    apply_repetition_penalty(logits, distinct, repetition_penalty);
    if (n_drawn < min_new_tokens) logits[eos] = -INFINITY;
    for (int64_t i = std::max<int64_t>(0, vocab - 1024); i < vocab; ++i)
        if (i != eos) logits[i] = -INFINITY;
}

// ref: transformers TemperatureLogitsWarper, TopKLogitsWarper, TopPLogitsWarper
void Sampler::warp(float* z, int64_t vocab, const SamplingParams& p) {
    check_logits(z, vocab);
    if (p.temperature != 1.0f)
        for (int64_t i = 0; i < vocab; ++i) {
            const float scaled = z[i] / p.temperature;
            if (std::isinf(scaled) && std::isfinite(z[i]))
                throw Error(ErrorCode::invalid_argument,
                            "sampler: logit at index " + std::to_string(i) +
                                " overflows to infinity at temperature " +
                                std::to_string(p.temperature));
            z[i] = scaled;
        }
    if (p.top_k > 0 && p.top_k < vocab) {
        // Every token whose logit is >= the k-th largest value stays, so ties with it can
        // leave more than k tokens (HF compares against the value, not the rank).
        sorted_.assign(z, z + vocab);
        std::nth_element(sorted_.begin(), sorted_.begin() + (p.top_k - 1), sorted_.end(),
                         std::greater<float>());
        const float threshold = sorted_[size_t(p.top_k - 1)];
        for (int64_t i = 0; i < vocab; ++i)
            if (z[i] < threshold) z[i] = -INFINITY;
    }
    if (p.top_p < 1.0f) {
        // HF sorts ascending, takes the cumulative softmax and removes the sorted *positions*
        // whose cumulative probability is <= 1 - top_p, never the last one. Equal logits have
        // equal probabilities, so how many tokens go is fixed by the values alone; which of
        // the tokens tied across that boundary go is not: torch.sort's default
        // (stable=False) leaves the order of equal values unspecified (x86-simd-sort or
        // std::sort on CPU). We break ties by index, lowest first, as torch.sort(stable=True)
        // would: the removal count is HF's (we sum in double, HF in float32, which can only
        // matter when a cumulative sum lies within rounding of 1 - top_p) and the choice
        // among ties is deterministic.
        order_.resize(size_t(vocab));
        std::iota(order_.begin(), order_.end(), 0);
        std::sort(order_.begin(), order_.end(),
                  [z](int32_t a, int32_t b) { return z[a] < z[b] || (z[a] == z[b] && a < b); });
        const double mx = z[order_.back()];
        double total = 0;
        for (int32_t i : order_) total += std::exp(double(z[i]) - mx);
        const double limit = 1.0 - double(p.top_p);
        double cum = 0;
        size_t n_remove = 0;
        for (size_t r = 0; r + 1 < order_.size(); ++r) {
            cum += std::exp(double(z[order_[r]]) - mx) / total;
            if (cum > limit) break;
            n_remove = r + 1;
        }
        for (size_t r = 0; r < n_remove; ++r) z[order_[r]] = -INFINITY;
    }
}

// Inverse CDF over exp(z - max): u = uniform * total, first token whose running sum exceeds
// u. Tokens of weight 0 (-inf, or underflowing) can never be picked. Each weight is computed
// once, and the tokens the warpers removed (-inf; after top-k most of the vocabulary) weigh
// exactly 0 without an exp: max is finite (warp checked), so exp(-inf - max) would be 0 too.
int32_t Sampler::draw(const float* z, int64_t vocab) {
    const float mx = *std::max_element(z, z + vocab);
    weights_.resize(size_t(vocab));
    double total = 0;
    for (int64_t i = 0; i < vocab; ++i) {
        const double w = z[i] == -INFINITY ? 0.0 : std::exp(double(z[i]) - mx);
        weights_[size_t(i)] = w;
        total += w;
    }
    const double u = rng_.uniform() * total;
    double cum = 0;
    int64_t last_positive = -1;
    for (int64_t i = 0; i < vocab; ++i) {
        const double w = weights_[size_t(i)];
        if (w == 0) continue;
        last_positive = i;
        cum += w;
        if (u < cum) return int32_t(i);
    }
    // u * total rounded up to total: the last token of positive weight.
    QWEN3TTS_ASSERT(last_positive >= 0);
    return int32_t(last_positive);
}

int32_t Sampler::choose(float* z, int64_t vocab, const SamplingParams& p) {
    QWEN3TTS_ASSERT(vocab > 0 && vocab <= INT32_MAX);
    if (!p.do_sample) {
        check_logits(z, vocab);
        int64_t best = 0;
        for (int64_t i = 1; i < vocab; ++i)
            if (z[i] > z[best]) best = i;
        return int32_t(best);
    }
    warp(z, vocab, p);
    return draw(z, vocab);
}

}  // namespace qwen3tts
