// Synthesizers used from several threads: one Synthesizer shared by two threads refuses the
// second caller with a clear error (never wrong output), through the C++ and the C API; two
// Synthesizers in two threads share the process-wide worker threads and give the same codes
// as solo runs; an idle loaded Synthesizer uses no CPU.
#include <gtest/gtest.h>
#include <time.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "qwen3tts/qwen3tts.h"
#include "qwen3tts/qwen3tts.hpp"
#include "support/test_support.hpp"

namespace qwen3tts {
namespace {

const char* const kBusy =
    "Synthesizer is already in use by another thread; use one Synthesizer per concurrent request";
const char* const kText = "Hello world, this is a test.";

SynthesisOptions options(const Model& model, bool greedy, uint64_t seed) {
    SynthesisOptions o = model.default_options();
    o.language = "English";
    o.speaker = "Ryan";
    o.max_frames = 12;
    o.seed = seed;
    if (greedy) o.talker.do_sample = o.predictor.do_sample = false;
    return o;
}

Model tiny() {
    return Model::load(testing::model_dir("tiny-custom_voice"));
}

TEST(Concurrency, SecondCallerOfABusySynthesizerGetsTheError) {
    const Model model = tiny();
    Synthesizer synth(model, EngineOptions{2});
    const SynthesisOptions o = options(model, true, 0);
    const auto expected = synth.generate_codes(kText, o);

    // Thread A holds the Synthesizer inside its first frame until B has tried.
    std::mutex m;
    std::condition_variable cv;
    bool a_inside = false, b_done = false;
    std::string b_error;
    std::vector<int32_t> a_codes;
    std::thread a([&] {
        a_codes = synth.generate_codes(kText, o, [&](const int32_t*) {
            std::unique_lock<std::mutex> lock(m);
            a_inside = true;
            cv.notify_all();
            cv.wait(lock, [&] { return b_done; });
            return true;
        });
    });
    {
        std::unique_lock<std::mutex> lock(m);
        cv.wait(lock, [&] { return a_inside; });
    }
    try {
        synth.generate_codes(kText, o);
    } catch (const Error& e) {
        b_error = e.what();
        EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
    }
    {
        std::lock_guard<std::mutex> lock(m);
        b_done = true;
    }
    cv.notify_all();
    a.join();
    EXPECT_EQ(b_error, kBusy);
    EXPECT_EQ(a_codes, expected);
    // Free again afterwards.
    EXPECT_EQ(synth.generate_codes(kText, o), expected);
}

TEST(Concurrency, TwoThreadsHammeringOneSynthesizerNeverGetWrongCodes) {
    const Model model = tiny();
    Synthesizer synth(model, EngineOptions{2});
    const SynthesisOptions o = options(model, false, 7);
    const auto expected = synth.generate_codes(kText, o);
    std::atomic<int> ok{0}, busy{0}, wrong{0};
    auto hammer = [&] {
        for (int i = 0; i < 15; ++i) {
            try {
                if (synth.generate_codes(kText, o) == expected)
                    ok.fetch_add(1);
                else
                    wrong.fetch_add(1);
            } catch (const Error& e) {
                if (std::string(e.what()) == kBusy)
                    busy.fetch_add(1);
                else
                    wrong.fetch_add(1);
            }
        }
    };
    std::thread t1(hammer), t2(hammer);
    t1.join();
    t2.join();
    EXPECT_EQ(wrong.load(), 0);
    EXPECT_EQ(ok.load() + busy.load(), 30);
}

TEST(Concurrency, CApiTwoThreadsOnOneSynthesizerNeverGetWrongCodes) {
    qwen3tts_model* model = nullptr;
    ASSERT_EQ(qwen3tts_model_load(testing::model_dir("tiny-custom_voice").c_str(), nullptr, &model),
              QWEN3TTS_OK)
        << qwen3tts_last_error();
    qwen3tts_synthesizer* synth = nullptr;
    ASSERT_EQ(qwen3tts_synthesizer_new(model, 2, &synth), QWEN3TTS_OK) << qwen3tts_last_error();
    qwen3tts_options opts;
    qwen3tts_options_init(model, &opts, sizeof opts);
    opts.language = "English";
    opts.speaker = "Ryan";
    opts.max_frames = 12;
    opts.has_seed = 1;
    opts.seed = 11;
    auto run = [&](std::vector<int32_t>* out, std::string* error) {
        int32_t* codes = nullptr;
        size_t frames = 0;
        const int rc = qwen3tts_generate_codes(synth, kText, &opts, &codes, &frames, nullptr);
        if (rc == QWEN3TTS_OK)
            out->assign(codes, codes + frames * 16);
        else
            *error = std::to_string(rc) + ": " + qwen3tts_last_error();
        qwen3tts_free(codes);
        return rc;
    };
    std::vector<int32_t> expected;
    std::string error;
    ASSERT_EQ(run(&expected, &error), QWEN3TTS_OK) << error;
    const std::string busy_error = std::to_string(QWEN3TTS_ERR_INVALID_ARGUMENT) + ": " + kBusy;
    std::atomic<int> ok{0}, busy{0}, wrong{0};
    auto hammer = [&] {
        for (int i = 0; i < 15; ++i) {
            std::vector<int32_t> codes;
            std::string e;
            if (run(&codes, &e) == QWEN3TTS_OK)
                (codes == expected ? ok : wrong).fetch_add(1);
            else
                (e == busy_error ? busy : wrong).fetch_add(1);
        }
    };
    std::thread t1(hammer), t2(hammer);
    t1.join();
    t2.join();
    EXPECT_EQ(wrong.load(), 0);
    EXPECT_EQ(ok.load() + busy.load(), 30);
    qwen3tts_synthesizer_free(synth);
    qwen3tts_model_free(model);
}

TEST(Concurrency, TwoSynthesizersInTwoThreadsGiveTheirSoloCodes) {
    const Model model = tiny();
    std::vector<int32_t> solo[2];
    for (int i = 0; i < 2; ++i) {
        Synthesizer s(model, EngineOptions{4, Kernels::fast, true});
        solo[i] = s.generate_codes(kText, options(model, false, uint64_t(100 + i)));
    }
    ASSERT_NE(solo[0], solo[1]);
    std::vector<int32_t> got[2][10];
    std::vector<std::thread> threads;
    for (int i = 0; i < 2; ++i)
        threads.emplace_back([&, i] {
            Synthesizer s(model, EngineOptions{4, Kernels::fast, true});
            const SynthesisOptions o = options(model, false, uint64_t(100 + i));
            for (auto& g : got[i]) g = s.generate_codes(kText, o);
        });
    for (auto& t : threads) t.join();
    for (int i = 0; i < 2; ++i)
        for (int r = 0; r < 10; ++r)
            EXPECT_EQ(got[i][r], solo[i]) << "synthesizer " << i << " run " << r;
}

double process_cpu_ms() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

TEST(Concurrency, IdleLoadedSynthesizerUsesNoCpu) {
    const Model model = tiny();
    Synthesizer synth(model, EngineOptions{4, Kernels::fast, true});
    ASSERT_FALSE(synth.generate_codes(kText, options(model, true, 0)).empty());
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    const double t0 = process_cpu_ms();
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    EXPECT_LT(process_cpu_ms() - t0, 30.0);
}

// The whole pipeline (talker, predictor, streaming codec) with the default thread count, then
// 2 s idle: workers, codec and all, must sleep (a spinning worker burns ~1000 ms per second).
TEST(Concurrency, IdleAfterSpeechUsesNoCpu) {
    const Model model = tiny();
    Synthesizer synth(model);
    ASSERT_FALSE(synth.speak(kText, options(model, true, 0)).empty());
    std::this_thread::sleep_for(std::chrono::seconds(1));
    const double t0 = process_cpu_ms();
    std::this_thread::sleep_for(std::chrono::seconds(1));
    EXPECT_LT(process_cpu_ms() - t0, 50.0) << "CPU time of 1 s idle";
}

TEST(Concurrency, NegativeThreadsAreAnError) {
    const Model model = tiny();
    try {
        Synthesizer s(model, EngineOptions{-1});
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
        EXPECT_STREQ(e.what(), "threads must be >= 0 (0 = all online CPUs), got -1");
    }
    qwen3tts_model* cm = nullptr;
    ASSERT_EQ(qwen3tts_model_load(testing::model_dir("tiny-custom_voice").c_str(), nullptr, &cm),
              QWEN3TTS_OK);
    qwen3tts_synthesizer* synth = nullptr;
    EXPECT_EQ(qwen3tts_synthesizer_new(cm, -3, &synth), QWEN3TTS_ERR_INVALID_ARGUMENT);
    EXPECT_STREQ(qwen3tts_last_error(), "threads must be >= 0 (0 = all online CPUs), got -3");
    EXPECT_EQ(synth, nullptr);
    qwen3tts_model_free(cm);
    EXPECT_THROW(model.decode({}, "streaming", -2), Error);
}

}  // namespace
}  // namespace qwen3tts
