// Long texts spoken in segments (SynthesisOptions::segment_chars): each segment's codes are
// those of the segment spoken alone with seed + i, the audio is one codec stream over all of
// them, a stop in one segment ends the call, and what cannot take segments says so.
#include <gtest/gtest.h>

#include <fstream>
#include <mutex>
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

// On the Scheduler (tests/e2e/test_scheduler.cpp has its segments beside other requests): a
// stop in the first segment ends the request, and a cancel in a later one ends it there.
TEST(LongText, TheSchedulerStopsAndCancelsACallOfSegments) {
    const Model model = Model::load(testing::model_dir("tiny-custom_voice"));
    Scheduler scheduler(model);
    int seen = 0;
    RequestCallbacks stop;
    stop.on_frame = [&](const int32_t*) { return ++seen < 2; };
    RequestResult r = scheduler.submit(kText, options(model, 30), std::move(stop)).wait();
    EXPECT_EQ(r.status, RequestResult::Status::completed) << r.error;
    EXPECT_EQ(seen, 2);
    EXPECT_EQ(r.report.generation.frames, 2);
    size_t audio_calls = 0;
    RequestCallbacks stop_audio;
    stop_audio.on_audio = [&](const float*, size_t) {
        ++audio_calls;
        return false;
    };
    r = scheduler.submit(kText, options(model, 30), std::move(stop_audio)).wait();
    EXPECT_EQ(r.status, RequestResult::Status::completed) << r.error;
    EXPECT_EQ(audio_calls, 1u);
    EXPECT_LE(r.report.generation.frames, 2);  // the first frame is decoded after its step

    // Cancelled at the first frame of the second segment: it ends there.
    Synthesizer synth(model, EngineOptions{1});
    GenerationReport first;
    synth.generate_codes(kSegments[0], options(model, 0), {}, &first);
    ASSERT_GT(first.frames, 0);
    SpeechRequest request;
    int64_t frames = 0;
    std::mutex mu;
    RequestCallbacks cancel;
    cancel.on_frame = [&](const int32_t*) {
        if (++frames == first.frames + 1) {
            const std::lock_guard<std::mutex> lk(mu);
            request.cancel();
        }
        return true;
    };
    {
        const std::lock_guard<std::mutex> lk(mu);
        request = scheduler.submit(kText, options(model, 30), std::move(cancel));
    }
    r = request.wait();
    EXPECT_EQ(r.status, RequestResult::Status::cancelled);
    EXPECT_EQ(r.report.generation.frames, first.frames + 1);
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
                  scheduler.submit(kText, options(model, -1));
              }).find("segment_chars must be >= 0 (0 = the whole text at once), got -1"),
              std::string::npos);
    EXPECT_NE(testing::error_of([&] {
                  scheduler.submit_incremental(kText, options(model, 30));
              }).find("segment_chars is not available with incremental text"),
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

    // --batch: the option as every line's default, a line's own field over it.
    const std::string dir = testing::tmp_dir() + "/long_text_batch";
    const std::string lines = dir + ".jsonl";
    {
        std::ofstream f(lines);
        f << R"({"id": "default", "seed": 11, "text": ")" << kText << "\"}\n"
          << R"({"id": "own", "seed": 11, "segment_chars": 30, "text": ")" << kText << "\"}\n"
          << R"({"id": "whole", "seed": 11, "segment_chars": 0, "text": ")" << kText << "\"}\n";
    }
    r = run_cli(common + "--segment-chars 30 --batch " + shell_quote(lines) + " --out-dir " +
                shell_quote(dir));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(read_npy(dir + "/default.npy").to_i64(), solo);
    EXPECT_EQ(read_npy(dir + "/own.npy").to_i64(), solo);
    EXPECT_NE(read_npy(dir + "/whole.npy").to_i64(), solo);
    r = run_cli(common + "--segment-chars 30 --text - --incremental --out " + shell_quote(out) +
                " < /dev/null");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.output.find("--segment-chars and --incremental do not go together"),
              std::string::npos)
        << r.output;
}

}  // namespace
}  // namespace qwen3tts
