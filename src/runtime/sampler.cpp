#include "runtime/sampler.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.hpp"

namespace qwen3tts {

void SamplingParams::validate(const char* who) const {
    auto bad = [&](const std::string& what) {
        throw Error(ErrorCode::invalid_argument, std::string(who) + ": " + what);
    };
    if (!(temperature > 0.0f) || !std::isfinite(temperature))
        bad("temperature must be > 0, got " + std::to_string(temperature));
    if (top_k < 0) bad("top-k must be >= 0 (0 disables it), got " + std::to_string(top_k));
    if (!(top_p > 0.0f && top_p <= 1.0f)) bad("top-p must be in (0, 1], got " + std::to_string(top_p));
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

int32_t Sampler::choose(float* z, int64_t vocab, const SamplingParams& p) {
    if (!p.do_sample) {
        int64_t best = 0;
        for (int64_t i = 1; i < vocab; ++i)
            if (z[i] > z[best]) best = i;
        return int32_t(best);
    }
    // ref: transformers TemperatureLogitsWarper, TopKLogitsWarper, TopPLogitsWarper
    if (p.temperature != 1.0f)
        for (int64_t i = 0; i < vocab; ++i) z[i] /= p.temperature;
    if (p.top_k > 0 && p.top_k < vocab) {
        sorted_.assign(z, z + vocab);
        std::nth_element(sorted_.begin(), sorted_.begin() + (p.top_k - 1), sorted_.end(),
                         std::greater<float>());
        const float threshold = sorted_[size_t(p.top_k - 1)];
        for (int64_t i = 0; i < vocab; ++i)
            if (z[i] < threshold) z[i] = -INFINITY;
    }
    float mx = -INFINITY;
    for (int64_t i = 0; i < vocab; ++i) mx = std::max(mx, z[i]);
    if (p.top_p < 1.0f) {
        // Remove the smallest tokens whose cumulative probability is <= 1 - top_p.
        sorted_.assign(z, z + vocab);
        std::sort(sorted_.begin(), sorted_.end());
        double total = 0;
        for (float v : sorted_) total += std::exp(double(v) - mx);
        double cum = 0;
        float cutoff = -INFINITY;
        for (size_t i = 0; i + 1 < sorted_.size(); ++i) {
            cum += std::exp(double(sorted_[i]) - mx) / total;
            if (cum <= 1.0 - p.top_p) cutoff = sorted_[i];
            else break;
        }
        if (cutoff != -INFINITY)
            for (int64_t i = 0; i < vocab; ++i)
                if (z[i] <= cutoff) z[i] = -INFINITY;
    }
    double total = 0;
    for (int64_t i = 0; i < vocab; ++i) total += std::exp(double(z[i]) - mx);
    const double u = std::uniform_real_distribution<double>(0.0, 1.0)(rng_) * total;
    double cum = 0;
    int64_t last_valid = 0;
    for (int64_t i = 0; i < vocab; ++i) {
        if (z[i] == -INFINITY) continue;
        last_valid = i;
        cum += std::exp(double(z[i]) - mx);
        if (u < cum) return int32_t(i);
    }
    return int32_t(last_valid);
}

}  // namespace qwen3tts
