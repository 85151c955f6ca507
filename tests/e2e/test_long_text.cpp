// Long texts spoken in segments (SynthesisOptions::segment_chars): each segment's codes are
// those of the segment spoken alone with seed + i, the audio is one codec stream over all of
// them, a stop in one segment ends the call, and what cannot take segments says so.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/npy.hpp"
#include "qwen3tts/qwen3tts.hpp"
#include "support/test_support.hpp"

namespace qwen3tts {
namespace {

const char* const kText =
    "The first sentence is here. A second one follows it. And the third closes.";
// Cut at its sentence ends by 30 characters (tests/unit/test_text_segments.cpp tests the cuts).
const std::vector<std::string> kSegments = {"The first sentence is here.",
                                            "A second one follows it.", "And the third closes."};

SynthesisOptions options(const Model& model, int segment_chars) {
    SynthesisOptions o = model.default_options();
    o.language = "English";
    o.speaker = "Ryan";
    o.max_frames = 6;
    o.seed = 11;
    o.segment_chars = segment_chars;
    return o;
}

TEST(LongText, SegmentsAreTheirSoloRunsWithSeedPlusIndex) {
    const Model model = Model::load(testing::model_dir("tiny-custom_voice"));
    Synthesizer synth(model, EngineOptions{1});
    GenerationReport report;
    const std::vector<int32_t> codes = synth.generate_codes(kText, options(model, 30), {}, &report);

    std::vector<int32_t> solo;
    int64_t frames = 0;
    for (size_t i = 0; i < kSegments.size(); ++i) {
        SynthesisOptions o = options(model, 0);
        o.seed = 11 + i;
        GenerationReport one;
        const auto c = synth.generate_codes(kSegments[i], o, {}, &one);
        EXPECT_GT(one.frames, 0) << kSegments[i];
        frames += one.frames;
        solo.insert(solo.end(), c.begin(), c.end());
    }
    EXPECT_EQ(codes, solo);
    EXPECT_EQ(report.frames, frames);
    EXPECT_EQ(report.seed, 11u);
    // Not what one generation of the whole text gives.
    EXPECT_NE(synth.generate_codes(kText, options(model, 0)), codes);

    // The audio is the codes decoded as one stream.
    SpeechReport speech;
    const std::vector<float> audio = synth.speak(kText, options(model, 30), {}, &speech);
    EXPECT_EQ(audio, model.decode(codes, "streaming", 1));
    EXPECT_EQ(speech.generation.frames, frames);
    EXPECT_EQ(speech.samples, int64_t(audio.size()));
}

TEST(LongText, AStopInOneSegmentEndsTheCall) {
    const Model model = Model::load(testing::model_dir("tiny-custom_voice"));
    Synthesizer synth(model, EngineOptions{1});
    int seen = 0;
    const auto codes =
        synth.generate_codes(kText, options(model, 30), [&](const int32_t*) { return ++seen < 2; });
    EXPECT_EQ(seen, 2);
    EXPECT_EQ(codes.size(), 2u * 16u);
    size_t audio_calls = 0;
    SpeechReport report;
    synth.speak(
        kText, options(model, 30),
        [&](const float*, size_t) {
            ++audio_calls;
            return false;
        },
        &report);
    EXPECT_EQ(audio_calls, 1u);
    EXPECT_EQ(report.generation.frames, 1);  // the first frame is decoded alone
}

TEST(LongText, WhatTakesNoSegmentsSaysSo) {
    const Model model = Model::load(testing::model_dir("tiny-custom_voice"));
    Synthesizer synth(model, EngineOptions{1});
    EXPECT_NE(testing::error_of([&] {
                  synth.generate_codes(kText, options(model, -1));
              }).find("segment_chars must be >= 0 (0 = the whole text at once), got -1"),
              std::string::npos);
    Scheduler scheduler(model);
    EXPECT_NE(testing::error_of([&] {
                  scheduler.submit(kText, options(model, 30));
              }).find("segment_chars is not available with the Scheduler"),
              std::string::npos);
}

TEST(LongText, CliSegmentsAsTheApiDoes) {
    using testing::run_cli;
    using testing::shell_quote;
    const std::string model = shell_quote(testing::model_dir("tiny-custom_voice"));
    const std::string common =
        "codes --model " + model + " --speaker ryan --language english --max-frames 6 ";
    const std::string out = testing::tmp_dir() + "/long_text.npy";
    auto r = run_cli(common + "--seed 11 --segment-chars 30 --text " + shell_quote(kText) +
                     " --out " + shell_quote(out));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    std::vector<int64_t> solo;
    for (size_t i = 0; i < kSegments.size(); ++i) {
        const std::string one = testing::tmp_dir() + "/long_text_" + std::to_string(i) + ".npy";
        r = run_cli(common + "--seed " + std::to_string(11 + i) + " --text " +
                    shell_quote(kSegments[i]) + " --out " + shell_quote(one));
        ASSERT_EQ(r.exit_code, 0) << r.output;
        const auto c = read_npy(one).to_i64();
        solo.insert(solo.end(), c.begin(), c.end());
    }
    EXPECT_EQ(read_npy(out).to_i64(), solo);

    r = run_cli(common + "--segment-chars 30 --batch /dev/null --out-dir " +
                shell_quote(testing::tmp_dir()));
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.output.find("--segment-chars and --batch do not go together"), std::string::npos)
        << r.output;
    r = run_cli(common + "--segment-chars 30 --text - --incremental --out " + shell_quote(out) +
                " < /dev/null");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.output.find("--segment-chars and --incremental do not go together"),
              std::string::npos)
        << r.output;
}

}  // namespace
}  // namespace qwen3tts
