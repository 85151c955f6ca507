// Continuous batching against the official greedy codes: every golden case of a checkpoint
// runs in one FrameScheduler, the cases joining at different frames of the others, and each
// must still give exactly the official codes (batch invariance, docs/batching.md).
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <mutex>

#include "golden/golden_cases.hpp"
#include "runtime/frame_scheduler.hpp"

namespace qwen3tts {
namespace {

using namespace golden_cases;
using testing::golden;

struct CaseRun {
    GoldenCase c;
    VoiceClonePrompt voice;
    std::vector<int32_t> expected, codes;
    std::shared_ptr<Job> job;
};

// Runs the cases of one checkpoint together; case i > 0 is submitted once the cases already
// running have made `join_after[i]` frames in total.
void run_together(const std::vector<GoldenCase>& cases, const std::vector<int64_t>& join_after,
                  backend::KernelSet kernels) {
    const auto model = load_model(cases.front().variant);
    FrameSchedulerOptions options;
    options.max_batch = int(cases.size());
    options.session = SessionOptions{2, kernels};
    FrameScheduler scheduler(model, options);
    const bool clone = model->config().type == ModelType::base;

    std::vector<CaseRun> runs(cases.size());
    std::mutex mu;  // guards `submitted` and the runs' jobs
    size_t submitted = 0;
    std::atomic<int64_t> frames{0};
    std::function<void()> submit_due;
    auto submit = [&](size_t i) {
        CaseRun& r = runs[i];
        r.c = cases[i];
        if (clone) r.voice = golden_voice(r.c);
        const auto ref = golden(r.c.variant, r.c.tag + "__codes");
        const auto ref64 = ref.to_i64();
        r.expected.assign(ref64.begin(), ref64.end());
        JobSpec spec;
        spec.prompt = build_prompt(scheduler.caller_context(), model->config(), model->tokenizer(),
                                   model->talker(), model->predictor(),
                                   request(r.c, clone ? &r.voice : nullptr));
        spec.params = GenerationParams::defaults(model->config().generation);
        spec.params.talker.do_sample = spec.params.predictor.do_sample = false;
        spec.params.max_new_tokens = int(ref.shape[0]) + 1;
        spec.on_frame = [&, i](int64_t, const int32_t* codes) {
            runs[i].codes.insert(runs[i].codes.end(), codes, codes + 16);
            ++frames;
            submit_due();
            return true;
        };
        r.job = scheduler.submit(std::move(spec));
    };
    submit_due = [&] {
        const std::lock_guard<std::mutex> lk(mu);
        while (submitted < runs.size() && frames >= join_after[submitted]) submit(submitted++);
    };
    submit_due();
    // When everything running has ended before the next join point, the next joins anyway.
    for (;;) {
        std::vector<std::shared_ptr<Job>> jobs;
        {
            const std::lock_guard<std::mutex> lk(mu);
            for (size_t i = 0; i < submitted; ++i) jobs.push_back(runs[i].job);
        }
        for (auto& j : jobs) j->wait();
        const std::lock_guard<std::mutex> lk(mu);
        if (submitted == runs.size()) break;
        submit(submitted++);
    }
    for (CaseRun& r : runs) {
        const JobResult& res = r.job->wait();
        EXPECT_EQ(res.status, JobResult::Status::completed) << r.c.tag;
        EXPECT_EQ(r.codes, r.expected) << r.c.variant << "/" << r.c.tag << ": greedy codes";
    }
}

std::map<std::string, std::vector<GoldenCase>> by_variant(const std::vector<GoldenCase>& all) {
    std::map<std::string, std::vector<GoldenCase>> m;
    for (const auto& c : all) m[c.variant].push_back(c);
    return m;
}

TEST(BatchedGolden, TinyCasesTogetherAllJoiningAtOnce) {
    for (const auto& [variant, cases] : by_variant(tiny_cases()))
        run_together(cases, std::vector<int64_t>(cases.size(), 0), backend::KernelSet::fast);
}

TEST(BatchedGolden, TinyCasesJoiningMidway) {
    for (const auto& [variant, cases] : by_variant(tiny_cases())) {
        std::vector<int64_t> join{0};
        for (size_t i = 1; i < cases.size(); ++i) join.push_back(join.back() + 2 + int64_t(i));
        run_together(cases, join, backend::KernelSet::fast);
    }
}

TEST(BatchedGolden, TinyCasesReferenceKernels) {
    for (const auto& [variant, cases] : by_variant(tiny_cases())) {
        std::vector<int64_t> join{0};
        for (size_t i = 1; i < cases.size(); ++i) join.push_back(join.back() + 3);
        run_together(cases, join, backend::KernelSet::reference);
    }
}

TEST(BatchedGolden, RealCasesJoiningMidway) {
    const auto cases = real_cases();
    run_together(cases, {0, 1, 4}, backend::KernelSet::fast);
}

}  // namespace
}  // namespace qwen3tts
