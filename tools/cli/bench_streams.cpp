// qwen3tts bench --streams N: N requests at once through one Scheduler (continuous batching).
// Measures the aggregate frames per second and seconds of audio per wall second while all N
// generate (codec included), each stream's ms per frame, the time to first audio of a request
// joining N running ones, what one step of the N streams spends in the talker, the code
// predictor and the codec (what bounds N streams), and peak RSS. With --json one object with the
// fields `streams`, `aggregate_frames_per_s`, `audio_s_per_wall_s`, `per_stream_ms_per_frame`,
// `join_first_audio_ms`, `step_talker_ms`, `step_predictor_ms`, `step_codec_ms`, `peak_rss_mb`
// (medians over --runs).
#include "bench_streams.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <vector>

#include "synthesis_args.hpp"

namespace qwen3tts::cli {

namespace {

using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

double ms_between(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
}

struct Throughput {
    double frames_per_s = 0, audio_s_per_wall_s = 0, ms_per_frame = 0;
    int64_t frames = 0;  // counted in the window
    // One step of the batch (a frame of every stream), from the requests' reports: a stream's
    // talker and predictor times are those of the batched steps it was in, its codec time its
    // share of the batched decodes (so the streams' shares add up to the batch's time).
    double step_talker_ms = 0, step_predictor_ms = 0, step_codec_ms = 0;
};

// N streams of `frames` frames each. The window runs from the moment every stream has made
// its first frame (prefills are over) to the moment the first one makes its last, so that all
// N generate throughout: it measures the steady state of N streams. (Submitted one after the
// other, the streams start a step or more apart: while some generate, prompts run one chunk
// per step.)
Throughput run_streams(Scheduler& scheduler, const SynthesisRequest& req, int n, int sample_rate) {
    std::mutex mu;
    std::vector<int64_t> made(size_t(n), 0);
    const int64_t each = req.options.max_frames;
    int started = 0;
    bool closed = false;
    Clock::time_point window_start, last;
    int64_t window_frames = 0, window_samples = 0;
    std::vector<SpeechRequest> requests;
    for (int i = 0; i < n; ++i) {
        RequestCallbacks cb;
        cb.on_frame = [&, i](const int32_t*) {
            const std::lock_guard<std::mutex> lk(mu);
            if (closed) return true;
            if (made[size_t(i)]++ == 0 && ++started == n)
                window_start = Clock::now();
            else if (started == n)
                ++window_frames;
            last = Clock::now();
            closed = made[size_t(i)] == each;
            return true;
        };
        cb.on_audio = [&](const float*, size_t samples) {
            const std::lock_guard<std::mutex> lk(mu);
            if (started == n && !closed) window_samples += int64_t(samples);
            return true;
        };
        SynthesisOptions o = req.options;
        o.seed = req.options.seed.value_or(0) + uint64_t(i);
        requests.push_back(scheduler.submit(req.text, o, std::move(cb)));
    }
    Throughput t;
    std::vector<double> talker, predictor;
    for (auto& r : requests) {
        const RequestResult res = r.wait();
        if (res.status == RequestResult::Status::failed) throw Error(res.error_code, res.error);
        const double frames = double(std::max<int64_t>(res.report.generation.frames, 1));
        talker.push_back(res.report.generation.talker_ms / frames);
        predictor.push_back(res.report.generation.predictor_ms / frames);
        t.step_codec_ms += res.report.codec_ms / frames;
    }
    t.step_talker_ms = median(talker);
    t.step_predictor_ms = median(predictor);
    const double s = ms_between(window_start, last) / 1000.0;
    t.frames = window_frames;
    if (started == n && window_frames > 0 && s > 0) {
        t.frames_per_s = double(window_frames) / s;
        t.audio_s_per_wall_s = double(window_samples) / double(sample_rate) / s;
        t.ms_per_frame = 1000.0 * s / (double(window_frames) / double(n));
    }
    return t;
}

// Time to first audio (from submit) of one request joining n streams that are generating.
double join_first_audio(Scheduler& scheduler, const SynthesisRequest& req, int n) {
    std::mutex mu;
    std::condition_variable cv;
    std::vector<int64_t> frames(size_t(n), 0);
    std::vector<SpeechRequest> running;
    for (int i = 0; i < n; ++i) {
        RequestCallbacks cb;
        cb.on_frame = [&, i](const int32_t*) {
            const std::lock_guard<std::mutex> lk(mu);
            ++frames[size_t(i)];
            cv.notify_all();
            return true;
        };
        SynthesisOptions o = req.options;
        o.max_frames = 2 * req.options.max_frames + 32;  // past the joiner's first audio
        o.seed = uint64_t(1000 + i);
        running.push_back(scheduler.submit(req.text, o, std::move(cb)));
    }
    {
        // Every stream is past its prefill (two frames each). Submitted one after the other,
        // they start a step or more apart (while some generate, prompts run one chunk per
        // step), so a count of all their frames would let the joiner queue behind the last
        // ones' prompts.
        std::unique_lock<std::mutex> lk(mu);
        cv.wait(lk, [&] {
            return std::all_of(frames.begin(), frames.end(), [](int64_t f) { return f >= 2; }) ||
                   std::all_of(running.begin(), running.end(),
                               [](const SpeechRequest& r) { return r.done(); });
        });
    }
    RequestCallbacks cb;
    cb.on_audio = [](const float*, size_t) { return false; };  // the first audio is enough
    const RequestResult joined = scheduler.submit(req.text, req.options, std::move(cb)).wait();
    for (auto& r : running) r.cancel();
    for (auto& r : running) r.wait();
    if (joined.status == RequestResult::Status::failed)
        throw Error(joined.error_code, joined.error);
    return joined.report.first_audio_ms;
}

double peak_rss_mb() {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return double(ru.ru_maxrss) / 1024.0;
}

}  // namespace

int bench_streams(const Args& args) {
    check_synthesis_args(args);
    const int n = args.get_int("streams", 1, 1);
    const int frames = args.get_int("frames", 32, 2);
    const int runs = args.get_int("runs", 3, 1);
    const Model model = load_model(args);
    const ModelInfo info = model.info();
    SynthesisRequest req = parse_synthesis(
        args, model,
        "The quick brown fox jumps over the lazy dog, and then it runs back home again.",
        info.type == "custom_voice" && !info.speakers.empty() ? info.speakers.front() : "");
    // Every stream makes exactly `frames` frames (end of speech suppressed), so the window
    // holds N streams for its whole length and runs compare.
    req.options.max_frames = req.options.min_frames = frames;
    if (!req.options.seed) req.options.seed = 1;
    SchedulerOptions so;
    so.max_batch = n + 1;  // room for the joining request
    so.engine = req.engine;
    // Every request runs its whole prompt: all of them speak the same text, which a request
    // could otherwise take almost whole from one that ended (EngineOptions::reuse_prompts).
    so.engine.reuse_prompts = false;
    Scheduler scheduler(model, so);

    std::vector<double> fps, audio, ms, join, talker, predictor, codec;
    int64_t window_frames = 0;
    for (int r = 0; r < runs; ++r) {
        const Throughput t = run_streams(scheduler, req, n, model.sample_rate());
        window_frames = t.frames;
        if (t.frames > 0) {
            fps.push_back(t.frames_per_s);
            audio.push_back(t.audio_s_per_wall_s);
            ms.push_back(t.ms_per_frame);
        }
        talker.push_back(t.step_talker_ms);
        predictor.push_back(t.step_predictor_ms);
        codec.push_back(t.step_codec_ms);
        join.push_back(join_first_audio(scheduler, req, n));
    }
    if (args.flag("json")) {
        std::printf(
            "{\"streams\": %d, \"threads\": %d, \"quant\": \"%s\", \"codec_conv\": \"%s\", "
            "\"frames_per_stream\": %d, \"runs\": %d, "
            "\"aggregate_frames_per_s\": %.3f, \"audio_s_per_wall_s\": %.4f, "
            "\"per_stream_ms_per_frame\": %.2f, \"join_first_audio_ms\": %.1f, "
            "\"step_talker_ms\": %.2f, \"step_predictor_ms\": %.2f, \"step_codec_ms\": %.2f, "
            "\"peak_rss_mb\": %.0f}\n",
            n, req.engine.threads, info.quant.c_str(), info.codec_conv.c_str(), frames, runs,
            median(fps), median(audio), median(ms), median(join), median(talker), median(predictor),
            median(codec), peak_rss_mb());
        return 0;
    }
    std::printf("model            %s (%s %s)\n", info.dir.c_str(), info.size.c_str(),
                info.type.c_str());
    std::printf("streams          %d (threads %d, quant %s, codec convs %s)\n", n,
                req.engine.threads, info.quant.c_str(), info.codec_conv.c_str());
    std::printf(
        "frames           %d per stream; %lld measured while all %d generate (median "
        "of %d runs)\n",
        frames, static_cast<long long>(window_frames), n, runs);
    std::printf("aggregate        %.2f frames/s = %.3f s of audio per wall second\n", median(fps),
                median(audio));
    std::printf("per stream       %.1f ms/frame (real-time factor %.3f)\n", median(ms),
                median(ms) / 80.0);
    std::printf("join             %.0f ms to first audio for a request joining %d running\n",
                median(join), n);
    std::printf(
        "one step         talker %.1f + code predictor %.1f + codec %.1f ms (one frame of "
        "every stream)\n",
        median(talker), median(predictor), median(codec));
    std::printf("peak RSS         %.0f MB\n", peak_rss_mb());
    return 0;
}

}  // namespace qwen3tts::cli
