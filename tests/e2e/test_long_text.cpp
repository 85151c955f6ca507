// Long texts spoken in segments (SynthesisOptions::segment_chars): each segment's codes are
// those of the segment spoken alone with seed + i, the audio is one codec stream over all of
// them, a stop in one segment ends the call, incremental text is cut as it arrives into the
// same segments, and bad values say so.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <mutex>
#include <random>
#include <string>
#include <thread>
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
    // Segments 2 and 3 start from the voice's positions of the one before (role tokens, codec
    // control ids with the language, speaker, codec pad: 3 + 6, spec talker.md §4.2).
    EXPECT_EQ(report.reused_positions, 2 * 9);
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

TEST(LongText, BadSegmentOptionsSaySo) {
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
                  scheduler.submit_incremental(kText, options(model, -1));
              }).find("segment_chars must be >= 0 (0 = the whole text at once), got -1"),
              std::string::npos);
    // The text so far is checked at once, also when it is cut into segments.
    EXPECT_NE(testing::error_of([&] {
                  scheduler.submit_incremental("bad \xff byte", options(model, 30));
              }).find("text: invalid UTF-8 at byte offset 4"),
              std::string::npos);
}

// Incremental text in segments: whatever the pushes and their timing, the request speaks the
// segments the whole text gives, each as its streaming-layout generation with seed + i, in one
// codec stream: the Synthesizer's codes and audio for the whole text. A flush ends a segment.
TEST(LongText, IncrementalTextInSegmentsIsTheWholeTextsSegments) {
    const Model model = Model::load(testing::model_dir("tiny-custom_voice"));
    auto streaming = [&](int segment_chars) {
        SynthesisOptions o = options(model, segment_chars);
        o.text_layout = "streaming";
        return o;
    };
    Synthesizer synth(model, EngineOptions{1});
    const std::vector<int32_t> want = synth.generate_codes(kText, streaming(30));
    const std::vector<float> want_audio = synth.speak(kText, streaming(30));
    ASSERT_EQ(want.size(), kSegments.size() * 6 * 16) << "each segment outlasts max_frames";

    Scheduler scheduler(model);
    // finish_after: frames to wait for before the text is finished (the last segment then
    // ends before its text does).
    auto speak = [&](const std::vector<std::string>& pieces, int delay_ms, bool flush_after_first,
                     std::vector<float>* audio, int finish_after = 0) {
        std::vector<int32_t> codes;
        std::atomic<int> frames{0};
        RequestCallbacks cb;
        cb.on_frame = [&](const int32_t* c) {
            codes.insert(codes.end(), c, c + 16);
            ++frames;
            return true;
        };
        if (audio)
            cb.on_audio = [audio](const float* pcm, size_t n) {
                audio->insert(audio->end(), pcm, pcm + n);
                return true;
            };
        SpeechRequest r = scheduler.submit_incremental(pieces[0], streaming(30), std::move(cb));
        if (flush_after_first) r.flush_text();
        for (size_t i = 1; i < pieces.size(); ++i) {
            if (delay_ms) std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
            r.push_text(pieces[i]);
        }
        while (frames < finish_after) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        r.finish_text();
        const RequestResult result = r.wait();
        EXPECT_EQ(result.status, RequestResult::Status::completed) << result.error;
        EXPECT_EQ(result.report.generation.frames, int64_t(codes.size() / 16));
        return codes;
    };
    std::mt19937 rng(5);
    for (int trial = 0; trial < 4; ++trial) {
        std::vector<std::string> pieces;
        for (size_t at = 0; at < std::string(kText).size();) {
            const size_t n = 1 + rng() % 9;
            pieces.push_back(std::string(kText).substr(at, n));
            at += n;
        }
        // Fast, then slow: a segment's generation then ends before the next text is there.
        std::vector<float> audio;
        EXPECT_EQ(speak(pieces, trial % 2 == 0 ? 0 : 3, false, &audio), want) << trial;
        EXPECT_EQ(audio, want_audio) << trial;
    }
    // The last segment's generation ends (max_frames) before the text does: its sentence end
    // is certain, its last 7 tokens are there, and the request waits for the end of the text
    // (or more of it) after its last frame.
    const std::string complete =
        "The first sentence is here. A second one follows it. And then a few more words go. ";
    const std::vector<int32_t> want_complete = synth.generate_codes(complete, streaming(30));
    ASSERT_EQ(want_complete.size(), 3u * 6 * 16);
    EXPECT_EQ(speak({complete}, 0, false, nullptr, 3 * 6), want_complete);

    // A flush ends a segment: "A second one" is one, then the rest of the text is cut anew.
    const std::vector<std::string> parts = {"The first sentence is here. A second one",
                                            " follows it. And the third closes."};
    std::vector<int32_t> flushed;
    const std::vector<std::string> pieces = {"The first sentence is here.", "A second one",
                                             "follows it.", "And the third closes."};
    for (size_t i = 0; i < pieces.size(); ++i) {
        SynthesisOptions o = streaming(0);
        o.seed = 11 + i;
        const auto c = synth.generate_codes(pieces[i], o);
        flushed.insert(flushed.end(), c.begin(), c.end());
    }
    EXPECT_EQ(speak(parts, 0, true, nullptr), flushed);
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

    // --incremental in segments: the codes of the whole text in segments, streaming layout.
    const std::string streamed = testing::tmp_dir() + "/long_text_streamed.npy";
    r = run_cli(common + "--seed 11 --segment-chars 30 --text-layout streaming --text " +
                shell_quote(kText) + " --out " + shell_quote(streamed));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const std::string text_file = testing::tmp_dir() + "/long_text.txt";
    std::ofstream(text_file) << kText;
    r = run_cli(common + "--seed 11 --segment-chars 30 --text - --incremental --out " +
                shell_quote(out) + " < " + shell_quote(text_file));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(read_npy(out).to_i64(), read_npy(streamed).to_i64());
}

}  // namespace
}  // namespace qwen3tts
