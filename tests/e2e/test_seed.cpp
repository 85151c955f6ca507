// Sampling seeds: an unset seed is a fresh random one per call, reported so that the run can be
// repeated; repeating it with that seed gives the same codes. The full uint64 range is a seed.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "qwen3tts/qwen3tts.hpp"
#include "support/test_support.hpp"

namespace qwen3tts {
namespace {

const char* const kText = "Hello world, this is a test.";

SynthesisOptions sampled(const Model& model) {
    SynthesisOptions o = model.default_options();
    o.language = "English";
    o.speaker = "Ryan";
    o.max_frames = 12;
    return o;
}

TEST(Seed, UnsetSeedIsRandomAndReportedSoTheRunCanBeRepeated) {
    const Model model = Model::load(testing::model_dir("tiny-custom_voice"));
    Synthesizer synth(model, EngineOptions{1});
    SynthesisOptions o = sampled(model);
    std::set<uint64_t> seeds;
    std::vector<int32_t> first_codes;
    uint64_t first_seed = 0;
    for (int run = 0; run < 3; ++run) {
        GenerationReport report;
        const auto codes = synth.generate_codes(kText, o, {}, &report);
        seeds.insert(report.seed);
        if (run == 0) {
            first_codes = codes;
            first_seed = report.seed;
        }
    }
    EXPECT_EQ(seeds.size(), 3u) << "three runs without a seed drew the same seed";

    o.seed = first_seed;
    GenerationReport report;
    EXPECT_EQ(synth.generate_codes(kText, o, {}, &report), first_codes);
    EXPECT_EQ(report.seed, first_seed);
}

TEST(Seed, LargestSeedIsUsedAsGiven) {
    const Model model = Model::load(testing::model_dir("tiny-custom_voice"));
    Synthesizer synth(model, EngineOptions{1});
    SynthesisOptions o = sampled(model);
    o.seed = UINT64_MAX;
    SpeechReport report;
    const auto a = synth.speak(kText, o, {}, &report);
    EXPECT_EQ(report.generation.seed, UINT64_MAX);
    o.seed = UINT64_MAX - 1;
    const auto b = synth.speak(kText, o);
    EXPECT_NE(a, b) << "seeds 2^64-1 and 2^64-2 gave the same audio";
}

}  // namespace
}  // namespace qwen3tts
