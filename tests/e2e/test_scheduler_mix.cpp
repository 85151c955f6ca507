// A seeded random mix of requests through one Scheduler whose batch is smaller than the mix, so
// that requests wait in the queue, end, and leave their memory to the next ones (prompt reuse
// and the copies of voices in play): speakers, languages, instructions or cloned voices, all
// text layouts, long texts in segments, incremental text cut anywhere (inside characters too),
// greedy and sampled, different lengths, requests joining at different frames, some stopped
// from their frame callback. Every request gives, bit for bit, the codes and audio of its solo
// run on a fresh Synthesizer (a stopped one their beginning), whatever ran beside it and
// whatever it found in the memory of the ones before.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "qwen3tts/qwen3tts.hpp"
#include "support/join_schedule.hpp"
#include "support/request_mix.hpp"
#include "support/test_support.hpp"

namespace qwen3tts {
namespace {

using testing::MixCase;
using testing::MixParam;

struct MixOutcome {
    std::vector<int32_t> codes;
    std::vector<float> audio;
    RequestResult result;
};

// The text cut at `pieces - 1` distinct random bytes (inside UTF-8 characters too).
std::vector<std::string> cut(const std::string& text, int pieces, std::mt19937& rng) {
    std::vector<size_t> at;
    std::uniform_int_distribution<size_t> pos(1, text.size() - 1);
    while (int(at.size()) < std::min<int>(pieces - 1, int(text.size()) - 1)) {
        const size_t p = pos(rng);
        if (std::find(at.begin(), at.end(), p) == at.end()) at.push_back(p);
    }
    std::sort(at.begin(), at.end());
    std::vector<std::string> out;
    size_t from = 0;
    for (size_t p : at) out.push_back(text.substr(from, p - from)), from = p;
    out.push_back(text.substr(from));
    return out;
}

// The mix on one Scheduler of 3 places, case i joining after cases[i].join_after frames
// (testing::JoinSchedule): the same mix runs the same way every time.
std::vector<MixOutcome> run_mix(const Model& model, const std::vector<MixCase>& cases,
                                uint32_t seed) {
    SchedulerOptions options;
    options.max_batch = 3;
    options.max_queue = 64;
    options.engine.threads = 2;
    Scheduler scheduler(model, options);
    std::mt19937 rng(seed + 7);  // the cuts of incremental texts; used under the schedule's lock
    std::vector<MixOutcome> out(cases.size());
    std::vector<int64_t> join_after;
    for (const MixCase& c : cases) join_after.push_back(c.join_after);
    testing::JoinSchedule schedule(join_after, [&](size_t i) {
        const MixCase& c = cases[i];
        RequestCallbacks cb;
        cb.on_frame = [&, i](const int32_t* f) {
            out[i].codes.insert(out[i].codes.end(), f, f + 16);
            const bool go_on =
                cases[i].stop_at == 0 || int64_t(out[i].codes.size() / 16) < cases[i].stop_at;
            schedule.frame();
            return go_on;
        };
        cb.on_audio = [&, i](const float* s, size_t n) {
            out[i].audio.insert(out[i].audio.end(), s, s + n);
            return true;
        };
        if (c.pieces == 0) return scheduler.submit(c.text, c.options, std::move(cb));
        const std::vector<std::string> pieces = cut(c.text, c.pieces, rng);
        SpeechRequest r = scheduler.submit_incremental(pieces[0], c.options, std::move(cb));
        for (size_t p = 1; p < pieces.size(); ++p) r.push_text(pieces[p]);
        r.finish_text();
        return r;
    });
    std::vector<SpeechRequest> requests = schedule.run();
    for (size_t i = 0; i < cases.size(); ++i) out[i].result = requests[i].wait();
    return out;
}

class SchedulerMix : public ::testing::TestWithParam<MixParam> {};

TEST_P(SchedulerMix, EveryRequestEqualsItsSoloRun) {
    const Model model = testing::load_mix_model(GetParam());
    const std::vector<MixCase> cases = testing::draw_mix(model, GetParam().seed, 16);
    const std::vector<MixOutcome> mix = run_mix(model, cases, GetParam().seed);
    int64_t reused = 0;
    for (size_t i = 0; i < cases.size(); ++i) {
        SCOPED_TRACE("case " + std::to_string(i) + ": \"" + cases[i].text + "\"");
        const testing::SoloRun want = testing::solo_run(model, cases[i]);
        const MixOutcome& got = mix[i];
        ASSERT_EQ(got.result.status, RequestResult::Status::completed) << got.result.error;
        const GenerationReport& g = got.result.report.generation;
        EXPECT_LT(g.reused_positions, g.prompt_positions);
        reused += g.reused_positions;
        ASSERT_FALSE(want.codes.empty());
        if (cases[i].stop_at == 0 || want.codes.size() <= size_t(cases[i].stop_at) * 16) {
            EXPECT_EQ(got.codes, want.codes);
            EXPECT_EQ(got.audio, want.audio);
            continue;
        }
        // Stopped at its frame stop_at: those frames, and the audio decoded of them so far.
        EXPECT_EQ(g.frames, cases[i].stop_at);
        const std::vector<int32_t> start(want.codes.begin(),
                                         want.codes.begin() + cases[i].stop_at * 16);
        EXPECT_EQ(got.codes, start);
        ASSERT_LE(got.audio.size(), want.audio.size());
        EXPECT_TRUE(std::equal(got.audio.begin(), got.audio.end(), want.audio.begin()));
    }
    // The mix did run on the memory of earlier requests (otherwise it tests less than it says).
    EXPECT_GT(reused, 0);
}

INSTANTIATE_TEST_SUITE_P(
    Mixes, SchedulerMix,
    ::testing::Values(MixParam{"tiny-custom_voice", 1}, MixParam{"tiny-custom_voice", 2},
                      MixParam{"tiny-custom_voice", 3}, MixParam{"tiny-voice_design", 4},
                      MixParam{"tiny-voice_design", 5}, MixParam{"tiny-base", 6},
                      MixParam{"tiny-base", 7}, MixParam{"tiny-custom_voice", 8, "talker=q4"},
                      MixParam{"tiny-base", 9, "talker=q8"}),
    [](const ::testing::TestParamInfo<MixParam>& p) { return testing::mix_name(p.param); });

}  // namespace
}  // namespace qwen3tts
