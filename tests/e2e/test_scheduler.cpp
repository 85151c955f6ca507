// The public Scheduler: sampled requests of every kind run together, of different lengths and
// joining at different frames, give exactly the codes and audio of their solo Synthesizer runs
// with the same seed; cancel from another thread ends a request at the next frame and frees
// it; a full queue is ErrorCode::busy; a failing or stopping request ends alone; destroying the
// Scheduler cancels what is still running.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "qwen3tts/qwen3tts.hpp"
#include "support/join_schedule.hpp"
#include "support/test_support.hpp"

namespace qwen3tts {
namespace {

const std::string kHello = "Hello world, this is a test.";
const std::string kFox = "The quick brown fox jumps over the lazy dog.";
const std::string kNihao = "你好，欢迎使用语音合成。";

struct Case {
    std::string text;
    SynthesisOptions options;
};

struct Outcome {
    std::vector<int32_t> codes;
    std::vector<float> audio;
    RequestResult result;
};

Model load(const std::string& name) {
    return Model::load(testing::model_dir(name));
}

SchedulerOptions scheduler_options(int max_batch = 8, int max_queue = 64) {
    SchedulerOptions o;
    o.max_batch = max_batch;
    o.max_queue = max_queue;
    o.engine.threads = 2;
    return o;
}

Case sampled(const Model& model, const std::string& text, uint64_t seed, int max_frames) {
    Case c{text, model.default_options()};
    c.options.language = "English";
    c.options.seed = seed;
    c.options.max_frames = max_frames;
    return c;
}

Outcome solo(const Model& model, const Case& c) {
    Synthesizer synth(model, EngineOptions{2});
    Outcome o;
    o.codes = synth.generate_codes(c.text, c.options);
    o.audio = synth.speak(c.text, c.options);
    return o;
}

// Runs the cases on one Scheduler with codes and audio collected, case i joining after
// join_after[i] frames (testing::JoinSchedule).
std::vector<Outcome> run_batch(const Model& model, const std::vector<Case>& cases,
                               const std::vector<int64_t>& join_after) {
    Scheduler scheduler(model, scheduler_options());
    std::vector<Outcome> out(cases.size());
    testing::JoinSchedule schedule(join_after, [&](size_t i) {
        RequestCallbacks cb;
        cb.on_frame = [&, i](const int32_t* f) {
            out[i].codes.insert(out[i].codes.end(), f, f + 16);
            schedule.frame();
            return true;
        };
        cb.on_audio = [&, i](const float* s, size_t n) {
            out[i].audio.insert(out[i].audio.end(), s, s + n);
            return true;
        };
        return scheduler.submit(cases[i].text, cases[i].options, std::move(cb));
    });
    std::vector<SpeechRequest> requests = schedule.run();
    for (size_t i = 0; i < cases.size(); ++i) out[i].result = requests[i].wait();
    return out;
}

void expect_solo_equal(const Model& model, const std::vector<Case>& cases,
                       const std::vector<int64_t>& join_after) {
    const std::vector<Outcome> batch = run_batch(model, cases, join_after);
    for (size_t i = 0; i < cases.size(); ++i) {
        const Outcome want = solo(model, cases[i]);
        EXPECT_EQ(batch[i].result.status, RequestResult::Status::completed)
            << i << ": " << batch[i].result.error;
        EXPECT_EQ(batch[i].result.report.generation.seed, *cases[i].options.seed);
        EXPECT_EQ(batch[i].result.report.generation.frames, int64_t(want.codes.size() / 16));
        EXPECT_EQ(batch[i].result.report.samples, int64_t(want.audio.size()));
        ASSERT_FALSE(want.codes.empty()) << i;
        EXPECT_EQ(batch[i].codes, want.codes) << "case " << i << ": codes";
        // Bit for bit: the same floats, not merely close ones.
        EXPECT_EQ(batch[i].audio, want.audio) << "case " << i << ": audio";
    }
}

TEST(Scheduler, CustomVoiceSampledBatchEqualsSoloRuns) {
    const Model model = load("tiny-custom_voice");
    std::vector<Case> cases;
    const char* speakers[] = {"Ryan", "Vivian", "Serena", "Dylan"};
    for (int i = 0; i < 4; ++i) {
        Case c = sampled(model, i % 2 ? kFox : kHello, 100 + uint64_t(i), 6 + 3 * i);
        c.options.speaker = speakers[i];
        if (i == 3) c.options.text_layout = "streaming";
        cases.push_back(c);
    }
    cases[2].text = kNihao;
    cases[2].options.language = "Chinese";
    expect_solo_equal(model, cases, {0, 0, 3, 7});
}

// Long texts in segments (SynthesisOptions::segment_chars): a request's segments follow one
// another on the scheduler as in a Synthesizer call (segment i seeded seed + i, one codec
// stream), beside requests joining and leaving, and while others join between its segments.
TEST(Scheduler, LongTextsInSegmentsEqualTheirSynthesizerCalls) {
    const Model model = load("tiny-custom_voice");
    // Three segments by 45 characters: a sentence each.
    const std::string text = kHello + " " + kFox + " " + kHello;
    std::vector<Case> cases;
    const char* speakers[] = {"Ryan", "Vivian", "Serena", "Dylan"};
    for (int i = 0; i < 4; ++i) {
        Case c = sampled(model, i % 2 ? kFox : text, 50 + uint64_t(i), 4 + i);
        c.options.speaker = speakers[i];
        if (i % 2 == 0) c.options.segment_chars = 45;
        if (i == 2) c.options.text_layout = "streaming";
        cases.push_back(c);
    }
    expect_solo_equal(model, cases, {0, 2, 3, 6});
}

// The codec batch waits while a request is prefilling (so that its first audio does not wait
// for the batch), but a long prompt takes many steps: the running request's held frames are
// decoded once it holds the most it may (8), and its audio is still its solo audio.
TEST(Scheduler, ALongPrefillDoesNotHoldTheOthersAudioBack) {
    const Model model = load("tiny-custom_voice");
    Case running = sampled(model, kHello, 21, 30);
    running.options.speaker = "Ryan";
    std::string long_text;
    for (int i = 0; i < 30; ++i) long_text += kFox + " ";
    Case joining = sampled(model, long_text, 22, 3);
    joining.options.speaker = "Vivian";
    joining.options.text_layout = "non-streaming";  // the whole text in the prompt: ~12 chunks
    expect_solo_equal(model, {running, joining}, {0, 2});
}

// A request's KV caches and codec stream are those of requests that ended before it
// (runtime/request_memory.hpp): its codes and audio are the same as on new memory. Ryan's
// longer request leaves positions and codec state behind that Vivian's would read if it
// were not reset, and Ryan's second run gets the memory of both.
TEST(Scheduler, ARequestOnTheMemoryOfEndedOnesEqualsItsFirstRun) {
    const Model model = load("tiny-custom_voice");
    Case ryan = sampled(model, kFox, 31, 24);
    ryan.options.speaker = "Ryan";
    Case vivian = sampled(model, kNihao, 32, 9);
    vivian.options.speaker = "Vivian";
    vivian.options.language = "Chinese";
    Scheduler scheduler(model, scheduler_options(2));
    auto run = [&](const Case& c) {
        Outcome o;
        RequestCallbacks cb;
        cb.on_frame = [&](const int32_t* f) {
            o.codes.insert(o.codes.end(), f, f + 16);
            return true;
        };
        cb.on_audio = [&](const float* x, size_t n) {
            o.audio.insert(o.audio.end(), x, x + n);
            return true;
        };
        o.result = scheduler.submit(c.text, c.options, std::move(cb)).wait();
        EXPECT_EQ(o.result.status, RequestResult::Status::completed) << o.result.error;
        return o;
    };
    const Outcome ryan_first = run(ryan);
    const Outcome vivian_reused = run(vivian);
    const Outcome ryan_reused = run(ryan);
    const Outcome ryan_again = run(ryan);
    const Outcome vivian_first = solo(model, vivian);
    ASSERT_EQ(ryan_first.codes.size(), 24u * 16u);
    // Each request took the one kept cache of the one before. Vivian's prompt shares its
    // first 5 rows with Ryan's (the role tokens, codec think and think_bos; the language id
    // differs), and those positions were not run again. The second Ryan request gets Ryan's
    // voice back from the copies of voices (3 role tokens + 4 control ids, speaker, codec
    // pad: spec talker.md §4.2). The third runs on the second one's keys and values: all but
    // its prompt's last position.
    const GenerationReport& first = ryan_first.result.report.generation;
    EXPECT_EQ(first.reused_positions, 0);
    EXPECT_EQ(vivian_reused.result.report.generation.reused_positions, 5);
    EXPECT_EQ(ryan_reused.result.report.generation.reused_positions, 9);
    EXPECT_EQ(ryan_again.result.report.generation.reused_positions, first.prompt_positions - 1);
    EXPECT_EQ(ryan_again.codes, ryan_first.codes);
    EXPECT_EQ(ryan_again.audio, ryan_first.audio);
    EXPECT_EQ(ryan_reused.codes, ryan_first.codes);
    EXPECT_EQ(ryan_reused.audio, ryan_first.audio);
    EXPECT_EQ(vivian_reused.codes, vivian_first.codes);
    EXPECT_EQ(vivian_reused.audio, vivian_first.audio);
}

// Requests in one voice submitted together: each prefilled after the first starts from the
// voice the first one's prompt left (the copies of voices, looked up at a request's first
// prefill chunk), with the codes and audio of its solo run.
TEST(Scheduler, ABurstInOneVoiceReusesTheFirstRequestsVoice) {
    const Model model = load("tiny-custom_voice");
    std::vector<Case> cases;
    const std::vector<std::string> texts = {kHello, kFox, "Good morning to all of you."};
    for (size_t i = 0; i < texts.size(); ++i) {
        cases.push_back(sampled(model, texts[i], 41 + i, 6));
        cases.back().options.speaker = "Ryan";
    }
    const std::vector<Outcome> batch = run_batch(model, cases, {0, 0, 0});
    // 3 role tokens + 4 codec control ids (English) + speaker + codec pad (spec talker.md §4.2).
    const std::vector<int64_t> want_reused = {0, 9, 9};
    for (size_t i = 0; i < cases.size(); ++i) {
        EXPECT_EQ(batch[i].result.report.generation.reused_positions, want_reused[i]) << i;
        const Outcome want = solo(model, cases[i]);
        EXPECT_EQ(batch[i].codes, want.codes) << i;
        EXPECT_EQ(batch[i].audio, want.audio) << i;
    }
}

TEST(Scheduler, VoiceDesignSampledBatchEqualsSoloRuns) {
    const Model model = load("tiny-voice_design");
    std::vector<Case> cases;
    for (int i = 0; i < 3; ++i) {
        Case c = sampled(model, i ? kFox : kHello, 7 + uint64_t(i), 12 - 3 * i);
        c.options.instruct = i ? "用温柔的女声朗读。" : "A warm, low-pitched male voice.";
        if (i == 1) c.options.text_layout = "streaming";
        cases.push_back(c);
    }
    expect_solo_equal(model, cases, {0, 2, 4});
}

TEST(Scheduler, BaseVoicesSampledBatchEqualsSoloRuns) {
    const Model model = load("tiny-base");
    const std::vector<float> ref = testing::golden("tiny-base", "audio_ref_24k").to_f32();
    VoiceCloneOptions icl;
    icl.ref_text = kFox;
    VoiceCloneOptions xvec;
    xvec.x_vector_only = true;
    const Voice in_context = model.clone_voice(ref.data(), ref.size(), 24000, icl);
    const Voice x_vector = model.clone_voice(ref.data(), ref.size(), 24000, xvec);
    std::vector<Case> cases;
    for (int i = 0; i < 4; ++i) {
        Case c = sampled(model, i % 2 ? kHello : kFox, 1234 + uint64_t(i), 5 + 2 * i);
        c.options.voice = i < 2 ? in_context : x_vector;
        if (i == 2) c.options.text_layout = "non-streaming";
        cases.push_back(c);
    }
    // A long text in two segments with the in-context voice: its reference primes the codec
    // stream once, before the first segment.
    Case segments = sampled(model, kFox + " " + kHello, 1240, 4);
    segments.options.voice = in_context;
    segments.options.segment_chars = 45;
    cases.push_back(segments);
    expect_solo_equal(model, cases, {0, 1, 1, 5, 6});
}

// One frame callback holds the scheduler's thread at a given frame until the test lets it go.
struct Gate {
    std::mutex mu;
    std::condition_variable cv;
    bool reached = false, released = false;

    void arrive_and_wait() {
        std::unique_lock<std::mutex> lk(mu);
        reached = true;
        cv.notify_all();
        cv.wait(lk, [&] { return released; });
    }
    void wait_reached() {
        std::unique_lock<std::mutex> lk(mu);
        cv.wait(lk, [&] { return reached; });
    }
    void release() {
        const std::lock_guard<std::mutex> lk(mu);
        released = true;
        cv.notify_all();
    }
};

Case long_request(const Model& model, uint64_t seed) {
    Case c = sampled(model, kFox + " " + kFox + " " + kFox, seed, 400);
    c.options.speaker = "Ryan";
    // Greedy codes of this tiny checkpoint do not reach the end of speech early.
    c.options.talker.do_sample = c.options.predictor.do_sample = false;
    return c;
}

// Waits until the scheduler no longer counts anything as running (it drops a request from its
// count right after finishing it).
Scheduler::Load settled(const Scheduler& scheduler) {
    Scheduler::Load l = scheduler.load();
    for (int i = 0; i < 10000 && (l.active != 0 || l.queued != 0); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        l = scheduler.load();
    }
    return l;
}

// Requests joining running ones are prefilled one chunk per step, the first admitted first: a
// running request makes a frame for every chunk, and the joiners start one after the other.
TEST(Scheduler, JoiningRequestsArePrefilledOneChunkPerStepInTurn) {
    const Model model = load("tiny-custom_voice");
    Scheduler scheduler(model, scheduler_options());
    std::string text;
    for (int i = 0; i < 8; ++i) text += kFox + " ";
    Case joining = sampled(model, text, 61, 2);
    joining.options.speaker = "Vivian";
    joining.options.text_layout = "non-streaming";  // the whole text in the prompt: 3+ chunks
    std::mutex mu;
    int64_t running_frames = 0;
    std::vector<int64_t> started_at(3, -1);  // the running request's frames at a first frame
    std::vector<SpeechRequest> joiners(3);
    RequestCallbacks cb;
    cb.on_frame = [&](const int32_t*) {
        const std::lock_guard<std::mutex> lk(mu);
        if (++running_frames == 2)  // submitted in one step: admitted together
            for (size_t i = 0; i < joiners.size(); ++i) {
                RequestCallbacks jcb;
                jcb.on_frame = [&, i](const int32_t*) {
                    const std::lock_guard<std::mutex> jlk(mu);
                    started_at[i] = running_frames;
                    return false;  // one frame is enough
                };
                joiners[i] = scheduler.submit(joining.text, joining.options, std::move(jcb));
            }
        return true;
    };
    const Case c = long_request(model, 62);
    SpeechRequest running = scheduler.submit(c.text, c.options, std::move(cb));
    for (;;) {
        {
            const std::lock_guard<std::mutex> lk(mu);
            if (running_frames >= 2) break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    for (auto& j : joiners) EXPECT_EQ(j.wait().status, RequestResult::Status::completed);
    running.cancel();
    running.wait();
    // Each joiner's prompt takes at least 3 chunks, each a step of the running request.
    EXPECT_GE(started_at[0], 2 + 3);
    EXPECT_GE(started_at[1], started_at[0] + 3);
    EXPECT_GE(started_at[2], started_at[1] + 3);

    // With nobody generating, requests admitted together are prefilled side by side and make
    // their first frames in one step: none has made a frame before the others start. (They
    // are submitted as the one request before them ends, on the scheduler's thread: admitted
    // at its next iteration, all three.)
    Scheduler idle(model, scheduler_options());
    int64_t frames = 0;
    std::vector<int64_t> frames_before(3, -1);
    std::vector<SpeechRequest> together(3);
    RequestCallbacks before;
    before.on_done = [&](const RequestResult&) {
        for (size_t i = 0; i < together.size(); ++i) {
            RequestCallbacks tcb;
            tcb.on_frame = [&, i](const int32_t*) {
                const std::lock_guard<std::mutex> tlk(mu);
                if (frames_before[i] < 0) frames_before[i] = frames;
                ++frames;
                return true;
            };
            together[i] = idle.submit(joining.text, joining.options, std::move(tcb));
        }
    };
    Case one = sampled(model, kHello, 63, 1);
    one.options.speaker = "Ryan";
    EXPECT_EQ(idle.submit(one.text, one.options, std::move(before)).wait().status,
              RequestResult::Status::completed);
    for (auto& t : together) EXPECT_EQ(t.wait().status, RequestResult::Status::completed);
    EXPECT_EQ(frames_before, (std::vector<int64_t>{0, 1, 2}));
}

TEST(Scheduler, CancelFromAnotherThreadEndsTheRequestAtTheNextFrameAndFreesIt) {
    const Model model = load("tiny-custom_voice");
    Scheduler scheduler(model, scheduler_options());
    Gate gate;
    auto owned = std::make_shared<int>(0);  // captured by the callbacks: freed with them
    const std::weak_ptr<int> watch = owned;
    std::atomic<int> done_calls{0};
    RequestResult::Status done_status = RequestResult::Status::completed;
    RequestCallbacks cb;
    cb.on_frame = [&gate, owned](const int32_t*) {
        if (++*owned == 3) gate.arrive_and_wait();
        return true;
    };
    cb.on_done = [&](const RequestResult& r) {
        done_status = r.status;
        ++done_calls;
    };
    const Case c = long_request(model, 1);
    SpeechRequest request = scheduler.submit(c.text, c.options, std::move(cb));
    owned.reset();
    gate.wait_reached();
    EXPECT_EQ(scheduler.load().active, 1);
    std::thread canceller([&] { request.cancel(); });
    canceller.join();
    gate.release();
    const RequestResult r = request.wait();
    EXPECT_EQ(r.status, RequestResult::Status::cancelled);
    EXPECT_EQ(done_status, RequestResult::Status::cancelled);
    EXPECT_EQ(done_calls.load(), 1);
    EXPECT_EQ(r.report.generation.frames, 3);
    EXPECT_TRUE(request.done());
    EXPECT_TRUE(watch.expired()) << "the callbacks of a cancelled request are released";
    EXPECT_EQ(settled(scheduler).active, 0);
}

TEST(Scheduler, AFullQueueIsBusy) {
    const Model model = load("tiny-custom_voice");
    Scheduler scheduler(model, scheduler_options(1, 1));
    Gate gate;
    RequestCallbacks cb;
    cb.on_frame = [&gate](const int32_t*) {
        gate.arrive_and_wait();
        return true;
    };
    const Case c = long_request(model, 2);
    SpeechRequest running = scheduler.submit(c.text, c.options, std::move(cb));
    gate.wait_reached();
    SpeechRequest waiting = scheduler.submit(c.text, c.options);
    EXPECT_EQ(scheduler.load().queued, 1);
    try {
        scheduler.submit(c.text, c.options);
        ADD_FAILURE() << "a third request was accepted";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::busy);
        EXPECT_NE(std::string(e.what()).find("the request queue is full (1 waiting, max queue 1"),
                  std::string::npos)
            << e.what();
    }
    running.cancel();
    waiting.cancel();
    gate.release();
    EXPECT_EQ(running.wait().status, RequestResult::Status::cancelled);
    EXPECT_EQ(waiting.wait().status, RequestResult::Status::cancelled);
    EXPECT_EQ(waiting.wait().report.generation.frames, 0);
    // Room again: a new request is accepted and completes.
    Case short_case = sampled(model, kHello, 3, 4);
    short_case.options.speaker = "Ryan";
    EXPECT_EQ(scheduler.submit(short_case.text, short_case.options).wait().status,
              RequestResult::Status::completed);
}

TEST(Scheduler, AFailingOrStoppingRequestEndsAloneAndTheOthersAreUnchanged) {
    const Model model = load("tiny-custom_voice");
    Case good = sampled(model, kHello, 11, 10);
    good.options.speaker = "Ryan";
    Case other = sampled(model, kFox, 12, 8);
    other.options.speaker = "Vivian";
    const Outcome want_good = solo(model, good), want_other = solo(model, other);

    Scheduler scheduler(model, scheduler_options());
    std::vector<int32_t> good_codes, other_codes;
    std::vector<float> good_audio;
    RequestCallbacks good_cb;
    good_cb.on_frame = [&](const int32_t* f) {
        good_codes.insert(good_codes.end(), f, f + 16);
        return true;
    };
    good_cb.on_audio = [&](const float* s, size_t n) {
        good_audio.insert(good_audio.end(), s, s + n);
        return true;
    };
    RequestCallbacks other_cb;
    other_cb.on_frame = [&](const int32_t* f) {
        other_codes.insert(other_codes.end(), f, f + 16);
        return true;
    };
    int thrown_at = 0, stopped_at = 0;
    RequestCallbacks throwing;
    throwing.on_frame = [&](const int32_t*) -> bool {
        if (++thrown_at == 2) throw std::runtime_error("the caller's frame callback broke");
        return true;
    };
    // Stops at its second piece of audio: the frames end with the one that piece came with.
    int64_t stopping_frames = 0, frames_at_stop = 0;
    RequestCallbacks stopping;
    stopping.on_frame = [&](const int32_t*) {
        ++stopping_frames;
        return true;
    };
    stopping.on_audio = [&](const float*, size_t) {
        if (++stopped_at < 2) return true;
        frames_at_stop = stopping_frames;
        return false;
    };
    RequestCallbacks bad_audio;
    bad_audio.on_audio = [&](const float*, size_t) -> bool {
        throw Error(ErrorCode::io, "disk full writing out.wav");
    };

    SpeechRequest r_good = scheduler.submit(good.text, good.options, std::move(good_cb));
    SpeechRequest r_throw = scheduler.submit(kFox, other.options, std::move(throwing));
    SpeechRequest r_other = scheduler.submit(other.text, other.options, std::move(other_cb));
    SpeechRequest r_stop = scheduler.submit(kFox, good.options, std::move(stopping));
    SpeechRequest r_audio = scheduler.submit(kNihao, other.options, std::move(bad_audio));

    const RequestResult thrown = r_throw.wait();
    EXPECT_EQ(thrown.status, RequestResult::Status::failed);
    EXPECT_EQ(thrown.error, "the caller's frame callback broke");
    EXPECT_EQ(thrown.report.generation.frames, 2);
    const RequestResult audio_failed = r_audio.wait();
    EXPECT_EQ(audio_failed.status, RequestResult::Status::failed);
    EXPECT_EQ(audio_failed.error_code, ErrorCode::io);
    EXPECT_EQ(audio_failed.error, "disk full writing out.wav");
    const RequestResult stopped = r_stop.wait();
    EXPECT_EQ(stopped.status, RequestResult::Status::completed);
    EXPECT_EQ(stopped_at, 2);
    EXPECT_GT(frames_at_stop, 1);
    EXPECT_LT(frames_at_stop, 10);
    EXPECT_EQ(stopped.report.generation.frames, frames_at_stop);
    EXPECT_FALSE(stopped.report.generation.stopped_at_eos);

    EXPECT_EQ(r_good.wait().status, RequestResult::Status::completed);
    EXPECT_EQ(r_other.wait().status, RequestResult::Status::completed);
    EXPECT_EQ(good_codes, want_good.codes);
    EXPECT_EQ(good_audio, want_good.audio);
    EXPECT_EQ(other_codes, want_other.codes);
}

TEST(Scheduler, IncrementalTextMayStartEmptyAndBeCutInsideACharacter) {
    const Model model = load("tiny-custom_voice");
    Scheduler scheduler(model, scheduler_options());
    Case c = sampled(model, "Hello 你好, and goodbye.", 21, 10);
    c.options.speaker = "Ryan";
    std::vector<int32_t> pieces_codes, whole_codes;
    RequestCallbacks cb;
    cb.on_frame = [&](const int32_t* f) {
        pieces_codes.insert(pieces_codes.end(), f, f + 16);
        return true;
    };
    SpeechRequest r = scheduler.submit_incremental("", c.options, std::move(cb));
    // "你" is e4 bd a0: the second piece ends after its first two bytes.
    for (const std::string& piece :
         {std::string("Hello \xe4\xbd"), std::string("\xa0好, and"), std::string(" goodbye.")})
        r.push_text(piece);
    r.finish_text();
    EXPECT_EQ(r.wait().status, RequestResult::Status::completed) << r.wait().error;

    c.options.text_layout = "streaming";
    RequestCallbacks wcb;
    wcb.on_frame = [&](const int32_t* f) {
        whole_codes.insert(whole_codes.end(), f, f + 16);
        return true;
    };
    EXPECT_EQ(scheduler.submit(c.text, c.options, std::move(wcb)).wait().status,
              RequestResult::Status::completed);
    ASSERT_FALSE(whole_codes.empty());
    EXPECT_EQ(pieces_codes, whole_codes);
}

// Regression: an incremental request admitted before its text was finished had no generation
// state yet, and the step loop dereferenced it (a crash).
TEST(Scheduler, AnIncrementalRequestWaitsForItsTextWhileAdmitted) {
    const Model model = load("tiny-custom_voice");
    Scheduler scheduler(model, scheduler_options());
    Case c = sampled(model, "Hello there.", 22, 4);
    c.options.speaker = "Ryan";
    SpeechRequest r = scheduler.submit_incremental("Hello", c.options);
    for (int i = 0; i < 10000 && scheduler.load().active == 0; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ASSERT_EQ(scheduler.load().active, 1);
    // Give the scheduler's thread time for a few loop iterations with the request admitted.
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EXPECT_FALSE(r.done());
    r.push_text(" there.");
    r.finish_text();
    const RequestResult res = r.wait();
    EXPECT_EQ(res.status, RequestResult::Status::completed) << res.error;
    EXPECT_GT(res.report.generation.frames, 0);
}

TEST(Scheduler, BadOptionsAreAnErrorAtSubmit) {
    const Model model = load("tiny-custom_voice");
    Scheduler scheduler(model, scheduler_options());
    Case c = sampled(model, kHello, 1, 4);
    c.options.speaker = "nobody";
    const std::string e = testing::error_of([&] { scheduler.submit(c.text, c.options); });
    EXPECT_NE(e.find("nobody"), std::string::npos) << e;
    EXPECT_EQ(scheduler.load().queued + scheduler.load().active, 0);
}

TEST(Scheduler, DestroyingTheSchedulerCancelsWhatIsInFlight) {
    const Model model = load("tiny-custom_voice");
    std::vector<SpeechRequest> requests;
    std::vector<RequestResult::Status> statuses;
    std::mutex mu;
    Gate gate;
    std::thread releaser;
    {
        Scheduler scheduler(model, scheduler_options(1, 4));
        RequestCallbacks first;
        first.on_frame = [&gate](const int32_t*) {
            gate.arrive_and_wait();
            return true;
        };
        auto record = [&](const RequestResult& r) {
            const std::lock_guard<std::mutex> lk(mu);
            statuses.push_back(r.status);
        };
        first.on_done = record;
        const Case c = long_request(model, 5);
        requests.push_back(scheduler.submit(c.text, c.options, std::move(first)));
        gate.wait_reached();
        RequestCallbacks queued;
        queued.on_done = record;
        requests.push_back(scheduler.submit(c.text, c.options, std::move(queued)));
        // The scheduler is destroyed while its thread is held inside a frame callback: let it
        // go from another thread once the destructor has begun.
        releaser = std::thread([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            gate.release();
        });
    }
    releaser.join();
    ASSERT_EQ(statuses.size(), 2u);
    EXPECT_EQ(statuses[0], RequestResult::Status::cancelled);
    EXPECT_EQ(statuses[1], RequestResult::Status::cancelled);
    for (auto& r : requests) {
        EXPECT_TRUE(r.done());
        EXPECT_EQ(r.wait().status, RequestResult::Status::cancelled);
    }
}

}  // namespace
}  // namespace qwen3tts
