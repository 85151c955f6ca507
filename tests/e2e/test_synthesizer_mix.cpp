// A seeded random mix of requests, one after the other on one Synthesizer (voices taking turns,
// the same voice again with other texts, long texts in segments, some stopped from their frame
// callback): each call starts on the memory the calls before left (the kept cache, the copies
// of voices), and gives bit for bit the codes and audio of the same request alone on a fresh
// Synthesizer that runs every prompt whole.
#include <gtest/gtest.h>

#include "qwen3tts/qwen3tts.hpp"
#include "support/request_mix.hpp"
#include "support/test_support.hpp"

namespace qwen3tts {
namespace {

using testing::MixCase;
using testing::MixParam;

class SynthesizerMix : public ::testing::TestWithParam<MixParam> {};

TEST_P(SynthesizerMix, EveryCallEqualsItsSoloRun) {
    const Model model = testing::load_mix_model(GetParam());
    const std::vector<MixCase> cases = testing::draw_mix(model, GetParam().seed, 16);
    Synthesizer synth(model, EngineOptions{2});
    int64_t reused = 0;
    for (size_t i = 0; i < cases.size(); ++i) {
        const MixCase& c = cases[i];
        SCOPED_TRACE("case " + std::to_string(i) + ": \"" + c.text + "\"");
        int64_t frames = 0;
        GenerationReport g;
        const std::vector<int32_t> codes = synth.generate_codes(
            c.text, c.options,
            [&](const int32_t*) { return c.stop_at == 0 || ++frames < c.stop_at; }, &g);
        SpeechReport s;
        const std::vector<float> audio = synth.speak(c.text, c.options, {}, &s);
        EXPECT_LT(g.reused_positions, g.prompt_positions);
        reused += g.reused_positions + s.generation.reused_positions;

        const testing::SoloRun want = testing::solo_run(model, c);
        EXPECT_EQ(audio, want.audio);
        if (c.stop_at == 0 || want.codes.size() <= size_t(c.stop_at) * 16) {
            EXPECT_EQ(codes, want.codes);
            continue;
        }
        EXPECT_EQ(codes,
                  std::vector<int32_t>(want.codes.begin(), want.codes.begin() + c.stop_at * 16));
    }
    EXPECT_GT(reused, 0);
}

INSTANTIATE_TEST_SUITE_P(
    Mixes, SynthesizerMix,
    ::testing::Values(MixParam{"tiny-custom_voice", 11}, MixParam{"tiny-custom_voice", 12},
                      MixParam{"tiny-voice_design", 13}, MixParam{"tiny-base", 14},
                      MixParam{"tiny-voice_design", 15, "talker=q4"}),
    [](const ::testing::TestParamInfo<MixParam>& p) { return testing::mix_name(p.param); });

}  // namespace
}  // namespace qwen3tts
