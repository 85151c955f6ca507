// Sampling against independent facts: HF processor semantics and seeded reproducibility.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "runtime/sampler.hpp"

namespace qwen3tts {
namespace {

TEST(Sampler, GreedyPicksFirstMaximum) {
    Sampler s;
    std::vector<float> z{1.0f, 3.0f, 3.0f, -1.0f};
    EXPECT_EQ(s.choose(z.data(), 4, SamplingParams{false}), 1);
}

TEST(Sampler, RepetitionPenaltyDividesPositiveAndMultipliesNegative) {
    std::vector<float> z{2.1f, -2.0f, 5.0f};
    apply_repetition_penalty(z.data(), {0, 1}, 1.05f);
    EXPECT_FLOAT_EQ(z[0], 2.0f);
    EXPECT_FLOAT_EQ(z[1], -2.1f);
    EXPECT_FLOAT_EQ(z[2], 5.0f);
}

TEST(Sampler, TopKKeepsOnlyTheKLargest) {
    Sampler s(7);
    SamplingParams p{true, 1.0f, 2, 1.0f, 1.0f};
    std::map<int, int> seen;
    for (int i = 0; i < 2000; ++i) {
        std::vector<float> z{0.0f, 1.0f, 0.5f, 0.9f};
        ++seen[s.choose(z.data(), 4, p)];
    }
    EXPECT_EQ(seen.size(), 2u);
    EXPECT_TRUE(seen.count(1) && seen.count(3));
    // p(1)/p(3) = e^0.1
    EXPECT_NEAR(double(seen[1]) / seen[3], std::exp(0.1), 0.15);
}

TEST(Sampler, TopPDropsTheTail) {
    Sampler s(3);
    // probabilities ∝ 8, 4, 2, 1 → 0.533, 0.267, 0.133, 0.067; top_p 0.7 keeps the first two
    SamplingParams p{true, 1.0f, 0, 0.7f, 1.0f};
    std::map<int, int> seen;
    for (int i = 0; i < 3000; ++i) {
        std::vector<float> z{std::log(8.0f), std::log(4.0f), std::log(2.0f), 0.0f};
        ++seen[s.choose(z.data(), 4, p)];
    }
    EXPECT_EQ(seen.size(), 2u);
    EXPECT_NEAR(double(seen[0]) / 3000.0, 2.0 / 3.0, 0.04);
}

TEST(Sampler, TemperatureSharpensTheDistribution) {
    Sampler s(11);
    SamplingParams p{true, 0.5f, 0, 1.0f, 1.0f};
    int first = 0;
    for (int i = 0; i < 4000; ++i) {
        std::vector<float> z{std::log(2.0f), 0.0f};
        first += s.choose(z.data(), 2, p) == 0;
    }
    EXPECT_NEAR(first / 4000.0, 0.8, 0.03);  // (2/1)^(1/0.5) = 4 → 4/5
}

TEST(Sampler, SameSeedSameTokens) {
    SamplingParams p{true, 0.9f, 50, 1.0f, 1.0f};
    std::vector<int> a, b;
    for (auto* out : {&a, &b}) {
        Sampler s(1234);
        for (int i = 0; i < 100; ++i) {
            std::vector<float> z(100);
            for (int j = 0; j < 100; ++j) z[j] = std::sin(float(i * 100 + j));
            out->push_back(s.choose(z.data(), 100, p));
        }
    }
    EXPECT_EQ(a, b);
}

TEST(Sampler, InvalidParametersAreRejected) {
    EXPECT_THROW((SamplingParams{true, 0.0f}.validate("t")), std::exception);
    EXPECT_THROW((SamplingParams{true, 1.0f, -1}.validate("t")), std::exception);
    EXPECT_THROW((SamplingParams{true, 1.0f, 5, 1.5f}.validate("t")), std::exception);
}

}  // namespace
}  // namespace qwen3tts
