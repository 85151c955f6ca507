// Streaming text input through the scheduler against the official codes: the text of every
// golden case arrives in random pieces (cut anywhere, inside UTF-8 characters too) while the
// requests of a checkpoint run together, and each must give exactly the official greedy codes
// of its text layout. A stream whose next text has not arrived waits (it is not padded), so
// however slowly the text comes, the codes are those of the whole text.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <random>
#include <thread>

#include "golden/golden_cases.hpp"
#include "runtime/frame_scheduler.hpp"

namespace qwen3tts {
namespace {

using namespace golden_cases;
using testing::golden;

std::vector<std::string> random_pieces(const std::string& text, std::mt19937& rng) {
    std::vector<std::string> pieces;
    size_t at = 0;
    while (at < text.size()) {
        const size_t n = std::uniform_int_distribution<size_t>(0, 5)(rng);
        pieces.push_back(text.substr(at, n));
        at += n;
    }
    return pieces;
}

void run_incremental(const std::vector<GoldenCase>& cases, uint32_t seed) {
    const auto model = load_model(cases.front().variant);
    FrameSchedulerOptions options;
    options.max_batch = int(cases.size());
    options.session = SessionOptions{2, backend::KernelSet::fast};
    FrameScheduler scheduler(model, options);
    const bool clone = model->config().type == ModelType::base;

    struct Run {
        VoiceClonePrompt voice;
        std::vector<int32_t> expected, codes;
        std::shared_ptr<Job> job;
        std::vector<std::string> pieces;
    };
    std::vector<Run> runs(cases.size());
    std::mt19937 rng(seed);
    for (size_t i = 0; i < cases.size(); ++i) {
        Run& r = runs[i];
        const GoldenCase& c = cases[i];
        if (clone) r.voice = golden_voice(c);
        const auto ref = golden(c.variant, c.tag + "__codes");
        const auto ref64 = ref.to_i64();
        r.expected.assign(ref64.begin(), ref64.end());
        r.pieces = random_pieces(c.text, rng);
        JobSpec spec;
        spec.incremental_text = true;
        spec.request = request(c, clone ? &r.voice : nullptr);
        spec.request.text.clear();
        spec.params = GenerationParams::defaults(model->config().generation);
        spec.params.talker.do_sample = spec.params.predictor.do_sample = false;
        spec.params.max_new_tokens = int(ref.shape[0]) + 1;
        spec.on_frame = [&r](int64_t, const int32_t* codes) {
            r.codes.insert(r.codes.end(), codes, codes + 16);
            return true;
        };
        r.job = scheduler.submit(std::move(spec));
    }
    // One writer per request, each with its own pace.
    std::vector<std::thread> writers;
    for (size_t i = 0; i < runs.size(); ++i)
        writers.emplace_back([&runs, i, seed] {
            std::mt19937 pace(seed * 31 + uint32_t(i));
            for (const std::string& piece : runs[i].pieces) {
                runs[i].job->push_text(piece);
                std::this_thread::sleep_for(
                    std::chrono::milliseconds(std::uniform_int_distribution<int>(0, 4)(pace)));
            }
            runs[i].job->finish_text();
        });
    for (auto& w : writers) w.join();
    for (size_t i = 0; i < runs.size(); ++i) {
        const JobResult& res = runs[i].job->wait();
        EXPECT_EQ(res.status, JobResult::Status::completed) << cases[i].tag;
        EXPECT_EQ(runs[i].codes, runs[i].expected)
            << cases[i].variant << "/" << cases[i].tag << " (seed " << seed << "): greedy codes";
    }
}

TEST(IncrementalGolden, TinyCasesWithTextInRandomPiecesGiveTheOfficialCodes) {
    std::map<std::string, std::vector<GoldenCase>> by_variant;
    for (const auto& c : tiny_cases()) by_variant[c.variant].push_back(c);
    for (uint32_t seed : {1u, 2u, 3u})
        for (const auto& [variant, cases] : by_variant) run_incremental(cases, seed);
}

}  // namespace
}  // namespace qwen3tts
