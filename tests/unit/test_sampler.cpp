// Sampling against independent facts: HF processor semantics, the published test vectors of
// the generator, and seeded reproducibility.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <map>

#include "core/error.hpp"
#include "core/rng.hpp"
#include "runtime/sampler.hpp"
#include "support/test_support.hpp"

namespace qwen3tts {
namespace {

using testing::error_of;

constexpr float kNegInf = -INFINITY;

// Indices of the logits a warper left finite.
std::vector<int> kept(const std::vector<float>& z) {
    std::vector<int> k;
    for (size_t i = 0; i < z.size(); ++i)
        if (std::isfinite(z[i])) k.push_back(int(i));
    return k;
}

TEST(Rng, SplitMix64MatchesPublishedOutputs) {
    // Rosetta Code, "Pseudo-random numbers/Splitmix64": seed 1234567.
    uint64_t state = 1234567;
    for (uint64_t expected :
         {6457827717110365317ULL, 3203168211198807973ULL, 9817491932198370423ULL,
          4593380528125082431ULL, 16408922859458223821ULL})
        EXPECT_EQ(splitmix64_next(state), expected);
}

TEST(Rng, Xoshiro256StarStarMatchesReferenceOutputs) {
    // xoshiro256starstar.c from state {1, 2, 3, 4} (the vector rand_xoshiro tests against).
    Rng r;
    r.set_state({1, 2, 3, 4});
    for (uint64_t expected :
         {11520ULL, 0ULL, 1509978240ULL, 1215971899390074240ULL, 1216172134540287360ULL,
          607988272756665600ULL, 16172922978634559625ULL, 8476171486693032832ULL,
          10595114339597558777ULL, 2904607092377533576ULL})
        EXPECT_EQ(r.next(), expected);
}

TEST(Rng, SeedFillsTheStateWithSplitMix64AndUniformTakesTheTop53Bits) {
    Rng seeded(1234567), raw;
    raw.set_state({6457827717110365317ULL, 3203168211198807973ULL, 9817491932198370423ULL,
                   4593380528125082431ULL});
    for (int i = 0; i < 8; ++i) EXPECT_EQ(seeded.next(), raw.next());

    Rng r;
    r.set_state({1, 2, 3, 4});
    EXPECT_EQ(r.uniform(), 5 * 0x1.0p-53);  // 11520 >> 11
    EXPECT_EQ(r.uniform(), 0.0);
    EXPECT_EQ(r.uniform(), double(1509978240ULL >> 11) * 0x1.0p-53);
    EXPECT_NE(error_of([&] {
                  r.set_state({0, 0, 0, 0});
              }).find("must not be all zero"),
              std::string::npos);
}

TEST(Sampler, InverseCdfDrawIsDefinedByTheGenerator) {
    // Four tokens of weight exactly 1 among -inf ones: the draw must be finite[floor(4u)] with
    // u the generator's next uniform, on every platform.
    const std::vector<float> z{0.0f, kNegInf, 0.0f, 0.0f, kNegInf, 0.0f};
    const int finite[] = {0, 2, 3, 5};
    const SamplingParams p{true, 1.0f, 0, 1.0f, 1.0f};
    Sampler s(42);
    Rng r(42);
    for (int i = 0; i < 1000; ++i) {
        std::vector<float> w(z);
        const int expected = finite[int(r.uniform() * 4)];
        ASSERT_EQ(s.choose(w.data(), int64_t(w.size()), p), expected) << "draw " << i;
    }
}

TEST(Sampler, GreedyPicksFirstMaximum) {
    Sampler s;
    std::vector<float> z{1.0f, 3.0f, 3.0f, -1.0f};
    EXPECT_EQ(s.choose(z.data(), 4, SamplingParams{false}), 1);
    std::vector<float> masked{kNegInf, kNegInf, -5.0f, kNegInf};
    EXPECT_EQ(s.choose(masked.data(), 4, SamplingParams{false}), 2);
}

TEST(Sampler, RepetitionPenaltyDividesPositiveAndMultipliesNegative) {
    std::vector<float> z{2.1f, -2.0f, 5.0f};
    apply_repetition_penalty(z.data(), {0, 1}, 1.05f);
    EXPECT_FLOAT_EQ(z[0], 2.0f);
    EXPECT_FLOAT_EQ(z[1], -2.1f);
    EXPECT_FLOAT_EQ(z[2], 5.0f);
}

TEST(Sampler, TalkerProcessorsPenaliseMaskEosEarlyAndSuppressControlIds) {
    const int64_t V = 3072;
    const int eos = 2150;
    for (int64_t drawn : {1, 2}) {
        std::vector<float> z(V, 1.0f);
        z[7] = -2.0f;
        apply_talker_processors(z.data(), V, {7, 9}, drawn, 1.25f, 2, eos);
        EXPECT_FLOAT_EQ(z[7], -2.5f);
        EXPECT_FLOAT_EQ(z[9], 0.8f);
        EXPECT_EQ(z[8], 1.0f);
        EXPECT_EQ(z[2047], 1.0f);
        EXPECT_EQ(z[2048], kNegInf);
        EXPECT_EQ(z[3071], kNegInf);
        EXPECT_EQ(z[size_t(eos)], drawn < 2 ? kNegInf : 1.0f) << "drawn " << drawn;
    }
}

TEST(Sampler, TopKKeepsEveryTokenTiedWithTheKthLargest) {
    // HF: remove z < (k-th largest value); the 2nd largest is 2, held by four tokens.
    Sampler s;
    std::vector<float> z{3.0f, 2.0f, 2.0f, 2.0f, 1.0f, 2.0f};
    s.warp(z.data(), int64_t(z.size()), SamplingParams{true, 1.0f, 2, 1.0f, 1.0f});
    EXPECT_EQ(kept(z), (std::vector<int>{0, 1, 2, 3, 5}));
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

TEST(Sampler, TopPRemovesByPositionSoATieAcrossTheBoundaryIsSplit) {
    // Probabilities 1/8 (indices 0, 2, 3, 4) and 1/2 (index 1). Sorted ascending the
    // cumulative sums are 1/8, 2/8, 3/8, 4/8, 1: with top_p 0.7 the positions <= 0.3 go, i.e.
    // exactly two of the four tied tokens; ties go lowest index first (stable order).
    Sampler s;
    std::vector<float> z{0.0f, std::log(4.0f), 0.0f, 0.0f, 0.0f};
    s.warp(z.data(), 5, SamplingParams{true, 1.0f, 0, 0.7f, 1.0f});
    EXPECT_EQ(kept(z), (std::vector<int>{1, 3, 4}));
}

TEST(Sampler, TopPRemovesCumulativeProbabilityEqualToTheLimit) {
    // Four equal tokens: cumulative 0.25, 0.5, 0.75, 1 (exact); top_p 0.5 removes <= 0.5.
    Sampler s;
    std::vector<float> z(4, 0.0f);
    s.warp(z.data(), 4, SamplingParams{true, 1.0f, 0, 0.5f, 1.0f});
    EXPECT_EQ(kept(z), (std::vector<int>{2, 3}));
}

TEST(Sampler, TopPOnAllTiedLogitsKeepsOneTokenAndDrawsOnlyIt) {
    SamplingParams p{true, 1.0f, 0, 0.1f, 1.0f};
    Sampler s(5);
    std::vector<float> z(4, 0.0f);
    s.warp(z.data(), 4, p);
    EXPECT_EQ(kept(z), (std::vector<int>{3}));
    for (int i = 0; i < 50; ++i) {
        std::vector<float> w(4, 0.0f);
        ASSERT_EQ(s.choose(w.data(), 4, p), 3);
    }
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

TEST(Sampler, AllSuppressedLogitsAreAnErrorNotAToken) {
    for (bool sample : {true, false}) {
        Sampler s;
        std::vector<float> z(4, kNegInf);
        EXPECT_EQ(error_of([&] { s.choose(z.data(), 4, SamplingParams{sample}); }),
                  "sampler: no token can be chosen: all 4 logits are -inf (every token "
                  "suppressed)")
            << "do_sample " << sample;
    }
}

TEST(Sampler, NonFiniteLogitsAreAnError) {
    for (bool sample : {true, false}) {
        Sampler s;
        std::vector<float> z{0.0f, NAN, 1.0f};
        EXPECT_EQ(error_of([&] { s.choose(z.data(), 3, SamplingParams{sample}); }),
                  "sampler: non-finite logit nan at index 1");
        std::vector<float> y{0.0f, 1.0f, INFINITY};
        EXPECT_EQ(error_of([&] { s.choose(y.data(), 3, SamplingParams{sample}); }),
                  "sampler: non-finite logit inf at index 2");
    }
    Sampler s;
    std::vector<float> z{3e38f, 0.0f};
    EXPECT_EQ(error_of([&] {
                  s.choose(z.data(), 2, SamplingParams{true, 0.5f});
              }),
              "sampler: logit at index 0 overflows to infinity at temperature 0.500000");
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
