// C API scheduler: requests run together give the codes and audio of the C++ Synthesizer alone
// (same seed and options), incremental text equals the whole text in the streaming layout,
// cancel / stop / a full queue come back as statuses and codes, and the scheduler's load is
// reported.
#include <gtest/gtest.h>

#include <condition_variable>
#include <cstring>
#include <mutex>

#include "e2e/test_c_api_support.hpp"

namespace qwen3tts {
namespace {

using ctest::failure;
using ctest::load_model;
using ctest::new_report;

const char* const kHello = "Hello world, this is a test.";
const char* const kFox = "The quick brown fox jumps over the lazy dog.";

struct SchedulerFree {
    void operator()(qwen3tts_scheduler* p) const { qwen3tts_scheduler_free(p); }
};
struct RequestFree {
    void operator()(qwen3tts_request* p) const { qwen3tts_request_free(p); }
};
using CScheduler = std::unique_ptr<qwen3tts_scheduler, SchedulerFree>;
using CRequest = std::unique_ptr<qwen3tts_request, RequestFree>;

CScheduler new_scheduler(const qwen3tts_model* model, int max_batch = 8, int max_queue = 64) {
    qwen3tts_scheduler_options o;
    qwen3tts_scheduler_options_init(&o, sizeof o);
    EXPECT_EQ(o.max_batch, 8);
    EXPECT_EQ(o.max_queue, 64);
    o.max_batch = max_batch;
    o.max_queue = max_queue;
    o.threads = 2;
    qwen3tts_scheduler* s = nullptr;
    EXPECT_EQ(qwen3tts_scheduler_new(model, &o, &s), QWEN3TTS_OK) << qwen3tts_last_error();
    return CScheduler(s);
}

// What a request's C callbacks collect. stop_after_frames > 0: on_frame asks to stop there;
// hold_at_frame > 0: on_frame waits there until released.
struct Sink {
    std::vector<int32_t> codes;
    std::vector<float> audio;
    int done_calls = 0, done_status = -1, done_code = -1;
    std::string done_error;
    int stop_after_frames = 0;
    int hold_at_frame = 0;
    std::mutex mu;
    std::condition_variable cv;
    bool held = false, released = false;

    void release() {
        const std::lock_guard<std::mutex> lk(mu);
        released = true;
        cv.notify_all();
    }
    void wait_held() {
        std::unique_lock<std::mutex> lk(mu);
        cv.wait(lk, [&] { return held; });
    }
};

int on_frame(const int32_t* codes, size_t n, void* user) {
    auto* s = static_cast<Sink*>(user);
    EXPECT_EQ(n, 16u);
    s->codes.insert(s->codes.end(), codes, codes + n);
    const int frames = int(s->codes.size() / 16);
    if (s->hold_at_frame > 0 && frames == s->hold_at_frame) {
        std::unique_lock<std::mutex> lk(s->mu);
        s->held = true;
        s->cv.notify_all();
        s->cv.wait(lk, [&] { return s->released; });
    }
    return s->stop_after_frames > 0 && frames >= s->stop_after_frames ? 1 : 0;
}

int on_audio(const float* samples, size_t n, void* user) {
    auto* s = static_cast<Sink*>(user);
    s->audio.insert(s->audio.end(), samples, samples + n);
    return 0;
}

void on_done(int status, int code, const char* error, void* user) {
    auto* s = static_cast<Sink*>(user);
    ++s->done_calls;
    s->done_status = status;
    s->done_code = code;
    s->done_error = error;
}

qwen3tts_request_callbacks callbacks(Sink* sink, bool audio) {
    qwen3tts_request_callbacks c;
    qwen3tts_request_callbacks_init(&c, sizeof c);
    EXPECT_EQ(c.on_frame, nullptr);
    c.on_frame = on_frame;
    if (audio) c.on_audio = on_audio;
    c.on_done = on_done;
    c.user_data = sink;
    return c;
}

CRequest submit(qwen3tts_scheduler* s, const char* text, const qwen3tts_options& o,
                const qwen3tts_request_callbacks* cb) {
    qwen3tts_request* r = nullptr;
    EXPECT_EQ(qwen3tts_scheduler_submit(s, text, &o, cb, &r), QWEN3TTS_OK) << qwen3tts_last_error();
    return CRequest(r);
}

qwen3tts_request_result wait(qwen3tts_request* r, qwen3tts_report* report = nullptr) {
    qwen3tts_request_result res{};
    res.struct_size = sizeof res;
    EXPECT_EQ(qwen3tts_request_wait(r, &res, report), QWEN3TTS_OK) << qwen3tts_last_error();
    return res;
}

qwen3tts_options sampled(const qwen3tts_model* model, const char* speaker, uint64_t seed,
                         int max_frames) {
    qwen3tts_options o;
    qwen3tts_options_init(model, &o, sizeof o);
    o.language = "English";
    o.speaker = speaker;
    o.has_seed = 1;
    o.seed = seed;
    o.max_frames = max_frames;
    return o;
}

SynthesisOptions cpp_options(const Model& model, const qwen3tts_options& c) {
    SynthesisOptions o = model.default_options();
    o.language = c.language;
    o.speaker = c.speaker;
    if (c.text_layout) o.text_layout = c.text_layout;
    o.seed = c.seed;
    o.max_frames = c.max_frames;
    o.talker.do_sample = c.talker.do_sample != 0;
    o.predictor.do_sample = c.predictor.do_sample != 0;
    return o;
}

TEST(CApiScheduler, RequestsTogetherEqualTheSynthesizerAlone) {
    const Model cpp_model = Model::load(testing::model_dir("tiny-custom_voice"));
    const auto model = load_model("tiny-custom_voice");
    const auto scheduler = new_scheduler(model.get());
    const char* texts[] = {kHello, kFox, kHello};
    const char* speakers[] = {"Ryan", "Vivian", "Serena"};
    std::vector<qwen3tts_options> opts;
    Sink sinks[3];
    std::vector<CRequest> requests;
    for (int i = 0; i < 3; ++i) {
        opts.push_back(sampled(model.get(), speakers[i], 40 + uint64_t(i), 6 + 3 * i));
        const qwen3tts_request_callbacks cb = callbacks(&sinks[i], i != 1);
        requests.push_back(submit(scheduler.get(), texts[i], opts.back(), &cb));
    }
    Synthesizer synth(cpp_model, EngineOptions{2});
    for (int i = 0; i < 3; ++i) {
        qwen3tts_report report = new_report();
        const qwen3tts_request_result res = wait(requests[i].get(), &report);
        EXPECT_EQ(res.status, QWEN3TTS_REQUEST_COMPLETED);
        EXPECT_EQ(res.error_code, 0);
        EXPECT_STREQ(res.error, "");
        EXPECT_EQ(qwen3tts_request_done(requests[i].get()), 1);
        EXPECT_EQ(sinks[i].done_calls, 1);
        EXPECT_EQ(sinks[i].done_status, QWEN3TTS_REQUEST_COMPLETED);
        const SynthesisOptions o = cpp_options(cpp_model, opts[size_t(i)]);
        const std::vector<int32_t> want = synth.generate_codes(texts[i], o);
        EXPECT_EQ(sinks[i].codes, want) << i;
        EXPECT_EQ(report.frames, int64_t(want.size() / 16));
        EXPECT_EQ(report.seed, 40u + uint64_t(i));
        EXPECT_EQ(report.cancelled, 0);
        if (i != 1) {
            EXPECT_EQ(sinks[i].audio, synth.speak(texts[i], o)) << i;
            EXPECT_EQ(report.samples, int64_t(sinks[i].audio.size()));
        } else {
            EXPECT_TRUE(sinks[i].audio.empty());
            EXPECT_EQ(report.samples, 0);
        }
    }
    qwen3tts_scheduler_load load{};
    load.struct_size = sizeof load;
    ASSERT_EQ(qwen3tts_scheduler_get_load(scheduler.get(), &load), QWEN3TTS_OK);
    EXPECT_EQ(load.frames,
              int64_t(sinks[0].codes.size() + sinks[1].codes.size() + sinks[2].codes.size()) / 16);
}

TEST(CApiScheduler, IncrementalTextEqualsTheWholeTextInTheStreamingLayout) {
    const auto model = load_model("tiny-custom_voice");
    const auto scheduler = new_scheduler(model.get());
    qwen3tts_options o = sampled(model.get(), "Ryan", 9, 12);
    Sink pieces;
    const qwen3tts_request_callbacks cb = callbacks(&pieces, true);
    qwen3tts_request* r = nullptr;
    ASSERT_EQ(qwen3tts_scheduler_submit_incremental(scheduler.get(), "The qu", &o, &cb, &r),
              QWEN3TTS_OK)
        << qwen3tts_last_error();
    const CRequest incremental(r);
    for (const char* piece : {"ick bro", "wn fox jumps ", "", "over the lazy dog."})
        ASSERT_EQ(qwen3tts_request_push_text(r, piece), QWEN3TTS_OK) << qwen3tts_last_error();
    ASSERT_EQ(qwen3tts_request_finish_text(r), QWEN3TTS_OK);
    EXPECT_EQ(qwen3tts_request_push_text(r, "more"), QWEN3TTS_ERR_INVALID_ARGUMENT);
    EXPECT_STREQ(qwen3tts_last_error(), "push_text: the text was already finished");
    EXPECT_EQ(wait(r).status, QWEN3TTS_REQUEST_COMPLETED);

    o.text_layout = "streaming";
    Sink whole;
    const qwen3tts_request_callbacks wcb = callbacks(&whole, true);
    EXPECT_EQ(wait(submit(scheduler.get(), kFox, o, &wcb).get()).status,
              QWEN3TTS_REQUEST_COMPLETED);
    ASSERT_FALSE(whole.codes.empty());
    EXPECT_EQ(pieces.codes, whole.codes);
    EXPECT_EQ(pieces.audio, whole.audio);

    // push_text on a request that was submitted whole is an error naming why.
    const CRequest plain = submit(scheduler.get(), kHello, o, nullptr);
    EXPECT_EQ(qwen3tts_request_push_text(plain.get(), "x"), QWEN3TTS_ERR_INVALID_ARGUMENT);
    EXPECT_STREQ(qwen3tts_last_error(),
                 "push_text: this request was not submitted with incremental text");
    EXPECT_EQ(wait(plain.get()).status, QWEN3TTS_REQUEST_COMPLETED);
}

// A flush where a tokenizer piece ends anyway (after "." before the following space) commits
// the pending text without changing the codes or the audio of the whole text.
TEST(CApiScheduler, FlushAtASentenceEndKeepsTheWholeTextCodes) {
    const auto model = load_model("tiny-custom_voice");
    const auto scheduler = new_scheduler(model.get());
    qwen3tts_options o = sampled(model.get(), "Ryan", 4, 12);
    Sink pieces;
    const qwen3tts_request_callbacks cb = callbacks(&pieces, true);
    qwen3tts_request* r = nullptr;
    ASSERT_EQ(qwen3tts_scheduler_submit_incremental(scheduler.get(), "Hello there.", &o, &cb, &r),
              QWEN3TTS_OK)
        << qwen3tts_last_error();
    const CRequest incremental(r);
    ASSERT_EQ(qwen3tts_request_flush_text(r), QWEN3TTS_OK) << qwen3tts_last_error();
    ASSERT_EQ(qwen3tts_request_push_text(r, " The quick brown fox."), QWEN3TTS_OK);
    ASSERT_EQ(qwen3tts_request_finish_text(r), QWEN3TTS_OK);
    EXPECT_EQ(qwen3tts_request_flush_text(r), QWEN3TTS_ERR_INVALID_ARGUMENT);
    EXPECT_STREQ(qwen3tts_last_error(), "flush_text: the text was already finished");
    EXPECT_EQ(wait(r).status, QWEN3TTS_REQUEST_COMPLETED);

    o.text_layout = "streaming";
    Sink whole;
    const qwen3tts_request_callbacks wcb = callbacks(&whole, true);
    EXPECT_EQ(
        wait(submit(scheduler.get(), "Hello there. The quick brown fox.", o, &wcb).get()).status,
        QWEN3TTS_REQUEST_COMPLETED);
    ASSERT_FALSE(whole.codes.empty());
    EXPECT_EQ(pieces.codes, whole.codes);
    EXPECT_EQ(pieces.audio, whole.audio);

    // A flush inside a word is a hard cut: "the" and "re" are then two words.
    o.text_layout = "auto";
    Sink cut;
    const qwen3tts_request_callbacks ccb = callbacks(&cut, true);
    ASSERT_EQ(qwen3tts_scheduler_submit_incremental(scheduler.get(), "Hello the", &o, &ccb, &r),
              QWEN3TTS_OK);
    const CRequest mid_word(r);
    ASSERT_EQ(qwen3tts_request_flush_text(r), QWEN3TTS_OK);
    ASSERT_EQ(qwen3tts_request_push_text(r, "re. The quick brown fox."), QWEN3TTS_OK);
    ASSERT_EQ(qwen3tts_request_finish_text(r), QWEN3TTS_OK);
    EXPECT_EQ(wait(r).status, QWEN3TTS_REQUEST_COMPLETED);
    ASSERT_FALSE(cut.codes.empty());
    EXPECT_NE(cut.codes, whole.codes);

    const CRequest plain = submit(scheduler.get(), kHello, o, nullptr);
    EXPECT_EQ(qwen3tts_request_flush_text(plain.get()), QWEN3TTS_ERR_INVALID_ARGUMENT);
    EXPECT_STREQ(qwen3tts_last_error(),
                 "flush_text: this request was not submitted with incremental text");
    EXPECT_EQ(qwen3tts_request_flush_text(nullptr), QWEN3TTS_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(wait(plain.get()).status, QWEN3TTS_REQUEST_COMPLETED);
}

TEST(CApiScheduler, CancelStopAndAFullQueue) {
    const auto model = load_model("tiny-custom_voice");
    const auto scheduler = new_scheduler(model.get(), 1, 1);
    qwen3tts_options o = sampled(model.get(), "Ryan", 3, 300);
    o.talker.do_sample = o.predictor.do_sample = 0;
    Sink held;
    held.hold_at_frame = 2;
    const qwen3tts_request_callbacks cb = callbacks(&held, false);
    const CRequest running = submit(scheduler.get(), kFox, o, &cb);
    held.wait_held();
    Sink queued_sink;
    const qwen3tts_request_callbacks qcb = callbacks(&queued_sink, false);
    const CRequest queued = submit(scheduler.get(), kFox, o, &qcb);
    qwen3tts_request* r = reinterpret_cast<qwen3tts_request*>(&held);  // overwritten with NULL
    const int rc = qwen3tts_scheduler_submit(scheduler.get(), kFox, &o, nullptr, &r);
    EXPECT_EQ(rc, QWEN3TTS_ERR_BUSY) << failure(rc);
    EXPECT_EQ(r, nullptr);
    EXPECT_NE(std::string(qwen3tts_last_error()).find("the request queue is full"),
              std::string::npos)
        << qwen3tts_last_error();

    EXPECT_EQ(qwen3tts_request_cancel(running.get()), QWEN3TTS_OK);
    EXPECT_EQ(qwen3tts_request_cancel(queued.get()), QWEN3TTS_OK);
    held.release();
    qwen3tts_report report = new_report();
    const qwen3tts_request_result res = wait(running.get(), &report);
    EXPECT_EQ(res.status, QWEN3TTS_REQUEST_CANCELLED);
    EXPECT_EQ(report.cancelled, 1);
    EXPECT_EQ(report.frames, 2);
    EXPECT_EQ(held.done_status, QWEN3TTS_REQUEST_CANCELLED);
    EXPECT_EQ(wait(queued.get()).status, QWEN3TTS_REQUEST_CANCELLED);
    EXPECT_TRUE(queued_sink.codes.empty());

    // A callback that asks to stop ends its request as completed, with report->cancelled = 1.
    Sink stopper;
    stopper.stop_after_frames = 4;
    const qwen3tts_request_callbacks scb = callbacks(&stopper, false);
    const CRequest stopped = submit(scheduler.get(), kFox, o, &scb);
    qwen3tts_report sreport = new_report();
    EXPECT_EQ(wait(stopped.get(), &sreport).status, QWEN3TTS_REQUEST_COMPLETED);
    EXPECT_EQ(sreport.cancelled, 1);
    EXPECT_EQ(sreport.frames, 4);
    EXPECT_EQ(stopper.codes.size(), 4u * 16u);
}

TEST(CApiScheduler, FreeingTheSchedulerCancelsWhatRuns) {
    const auto model = load_model("tiny-custom_voice");
    auto scheduler = new_scheduler(model.get(), 1, 4);
    qwen3tts_options o = sampled(model.get(), "Ryan", 3, 300);
    o.talker.do_sample = o.predictor.do_sample = 0;
    Sink a, b;
    const qwen3tts_request_callbacks acb = callbacks(&a, true), bcb = callbacks(&b, false);
    const CRequest ra = submit(scheduler.get(), kFox, o, &acb);
    const CRequest rb = submit(scheduler.get(), kFox, o, &bcb);
    scheduler.reset();
    EXPECT_EQ(a.done_calls, 1);
    EXPECT_EQ(b.done_calls, 1);
    EXPECT_EQ(wait(rb.get()).status, QWEN3TTS_REQUEST_CANCELLED);
    const int status = wait(ra.get()).status;
    // The first one may have ended on its own before the scheduler went.
    EXPECT_TRUE(status == QWEN3TTS_REQUEST_CANCELLED || status == QWEN3TTS_REQUEST_COMPLETED);
    EXPECT_EQ(qwen3tts_request_cancel(ra.get()), QWEN3TTS_OK);  // harmless once ended
}

TEST(CApiScheduler, ErrorsComeBackAsCodesWithMessages) {
    const auto model = load_model("tiny-custom_voice");
    const auto scheduler = new_scheduler(model.get());
    qwen3tts_options o = sampled(model.get(), "nobody", 1, 4);
    qwen3tts_request* r = nullptr;
    int rc = qwen3tts_scheduler_submit(scheduler.get(), kHello, &o, nullptr, &r);
    EXPECT_EQ(rc, QWEN3TTS_ERR_INVALID_ARGUMENT) << failure(rc);
    EXPECT_NE(std::string(qwen3tts_last_error()).find("nobody"), std::string::npos)
        << qwen3tts_last_error();
    rc = qwen3tts_scheduler_submit(scheduler.get(), nullptr, &o, nullptr, &r);
    EXPECT_STREQ(qwen3tts_last_error(), "qwen3tts_scheduler_submit: text is NULL");
    qwen3tts_request_callbacks unset{};
    o.speaker = "Ryan";
    rc = qwen3tts_scheduler_submit(scheduler.get(), kHello, &o, &unset, &r);
    EXPECT_EQ(rc, QWEN3TTS_ERR_INVALID_ARGUMENT);
    EXPECT_STREQ(qwen3tts_last_error(),
                 "qwen3tts_request_callbacks: struct_size not set (use "
                 "qwen3tts_request_callbacks_init)");
    qwen3tts_scheduler_options bad;
    qwen3tts_scheduler_options_init(&bad, sizeof bad);
    bad.max_batch = 0;
    qwen3tts_scheduler* s = nullptr;
    rc = qwen3tts_scheduler_new(model.get(), &bad, &s);
    EXPECT_EQ(rc, QWEN3TTS_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(s, nullptr);
    EXPECT_STREQ(qwen3tts_last_error(), "max batch must be at least 1, got 0");
    EXPECT_EQ(qwen3tts_request_wait(nullptr, nullptr, nullptr), QWEN3TTS_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(qwen3tts_request_done(nullptr), 0);
    qwen3tts_scheduler_free(nullptr);
    qwen3tts_request_free(nullptr);
}

}  // namespace
}  // namespace qwen3tts
