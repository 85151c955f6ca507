// qwen3tts bench: the machine's ceilings (read bandwidth, fp32 and bf16 peaks, measured first;
// the bandwidth again after the runs), load time, prefill, per-frame cost of talker and code
// predictor against the floor (the weight bytes each frame must read over the better of the
// two bandwidths), the streaming pipeline (codec, first audio, real-time factor), the prefill
// and first audio of a request that follows one in the same voice (its prompt partly reused)
// and peak RSS. --json prints the same numbers as one
// JSON object (fields in docs/benchmarks.md).
#include <sys/resource.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "bench_streams.hpp"
#include "commands.hpp"
#include "qwen3tts/benchmark.hpp"
#include "synthesis_args.hpp"

namespace qwen3tts::cli {

namespace {

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

double peak_rss_mb() {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return double(ru.ru_maxrss) / 1024.0;
}

double ms_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

struct Pipeline {
    double codec_load_ms = 0, codec_ms_per_audio_s = 0, first_audio_ms = 0, rtf = 0;
    double first_audio_same_voice_ms = 0;
    std::string codec_overlap;  // the setting of the runs
};

struct Results {
    ModelInfo info;
    MachinePeaks machine;
    FrameWeightBytes traffic;
    int runs = 0;
    int64_t frames = 0, positions = 0, reused_positions = 0;
    double load_ms = 0, prefill_ms = 0, talker_ms = 0, predictor_ms = 0;
    double prefill_same_voice_ms = 0;
    std::optional<Pipeline> pipeline;  // none with --no-codec
    double peak_rss_mb = 0;
    std::array<double, 2> read_probes{};  // GB/s before and after the runs

    double floor_ms(size_t bytes) const {
        return double(bytes) / (machine.read_gb_per_s * 1e9) * 1e3;
    }
};

// Three decimals: enough for milliseconds and GB/s, short to read.
double round3(double v) {
    return std::round(v * 1e3) / 1e3;
}

template <typename T>
nlohmann::json or_null(const std::optional<T>& v) {
    return v ? nlohmann::json(round3(*v)) : nlohmann::json(nullptr);
}

void print_json(const Results& r) {
    const auto pipe = [&](double Pipeline::*field) {
        return r.pipeline ? std::optional<double>(*r.pipeline.*field) : std::nullopt;
    };
    nlohmann::json j = {
        {"model_dir", r.info.dir},
        {"model_size", r.info.size},
        {"model_type", r.info.type},
        {"quant", r.info.quant},
        {"codec_conv", r.info.codec_conv},
        {"threads", r.machine.threads},
        {"frames", r.frames},
        {"load_ms", round3(r.load_ms)},
        {"codec_load_ms", or_null(pipe(&Pipeline::codec_load_ms))},
        {"prefill_ms", round3(r.prefill_ms)},
        {"reused_positions", r.reused_positions},
        {"prefill_same_voice_ms", round3(r.prefill_same_voice_ms)},
        {"talker_ms_per_frame", round3(r.talker_ms)},
        {"predictor_ms_per_frame", round3(r.predictor_ms)},
        {"codec_ms_per_audio_s", or_null(pipe(&Pipeline::codec_ms_per_audio_s))},
        {"codec_overlap", r.pipeline ? nlohmann::json(r.pipeline->codec_overlap) : nullptr},
        {"first_audio_ms", or_null(pipe(&Pipeline::first_audio_ms))},
        {"first_audio_same_voice_ms", or_null(pipe(&Pipeline::first_audio_same_voice_ms))},
        {"rtf", or_null(pipe(&Pipeline::rtf))},
        {"peak_rss_mb", round3(r.peak_rss_mb)},
        {"weight_bytes_per_frame", r.traffic.total()},
        {"floor_ms_per_frame", round3(r.floor_ms(r.traffic.total()))},
        {"read_gb_per_s", round3(r.machine.read_gb_per_s)},
        {"read_gb_per_s_probes", {round3(r.read_probes[0]), round3(r.read_probes[1])}},
        {"fp32_gflops", round3(r.machine.fp32_gflops)},
        {"bf16_gflops", or_null(r.machine.bf16_gflops)},
    };
    std::printf("%s\n", j.dump().c_str());
}

void print_text(const Results& r) {
    std::printf("model            %s (%s %s)\n", r.info.dir.c_str(), r.info.size.c_str(),
                r.info.type.c_str());
    std::printf("quant            %s (codec convs %s)\n", r.info.quant.c_str(),
                r.info.codec_conv.c_str());
    std::printf("threads          %d\n", r.machine.threads);
    std::printf(
        "machine          read %.1f GB/s (probes before / after the runs %.1f / %.1f), "
        "fp32 %.0f GFLOP/s, bf16 ",
        r.machine.read_gb_per_s, r.read_probes[0], r.read_probes[1], r.machine.fp32_gflops);
    if (r.machine.bf16_gflops)
        std::printf("%.0f GFLOP/s\n", *r.machine.bf16_gflops);
    else
        std::printf("- (no AVX512_BF16)\n");
    std::printf("load             %.1f ms\n", r.load_ms);
    std::printf("prompt           %lld positions\n", static_cast<long long>(r.positions));
    std::printf("frames per run   %lld (median of %d runs below)\n",
                static_cast<long long>(r.frames), r.runs);
    std::printf("prefill          %.1f ms\n", r.prefill_ms);
    std::printf(
        "same voice       prefill %.1f ms after a request in the same voice (%lld of the "
        "%lld positions reused)\n",
        r.prefill_same_voice_ms, static_cast<long long>(r.reused_positions),
        static_cast<long long>(r.positions));
    std::printf("talker           %.2f ms/frame (floor %.2f: %.0f MB per frame)\n", r.talker_ms,
                r.floor_ms(r.traffic.talker), double(r.traffic.talker) / 1e6);
    std::printf("code predictor   %.2f ms/frame (floor %.2f: %.0f MB per frame)\n", r.predictor_ms,
                r.floor_ms(r.traffic.predictor), double(r.traffic.predictor) / 1e6);
    const double per_frame = r.talker_ms + r.predictor_ms;
    std::printf(
        "total            %.2f ms/frame (floor %.2f; real-time factor %.3f at 80 ms of audio "
        "per frame)\n",
        per_frame, r.floor_ms(r.traffic.total()), per_frame / 80.0);
    if (r.pipeline) {
        std::printf("codec load       %.1f ms (on first use)\n", r.pipeline->codec_load_ms);
        // Beside the generation (--codec-overlap) the codec runs on one thread: its time
        // per second of audio is then about twice the time on all threads.
        std::printf("codec decoder    %.0f ms per second of audio (--codec-overlap %s)\n",
                    r.pipeline->codec_ms_per_audio_s, r.pipeline->codec_overlap.c_str());
        std::printf(
            "first audio      %.1f ms after the prompt is built (%.1f ms in the same "
            "voice as the request before)\n",
            r.pipeline->first_audio_ms, r.pipeline->first_audio_same_voice_ms);
        std::printf(
            "pipeline         real-time factor %.3f (streaming: talker + predictor + "
            "codec)\n",
            r.pipeline->rtf);
    }
    std::printf("peak RSS         %.0f MB\n", r.peak_rss_mb);
}

// The timed runs, each from a cold start of its prompt (EngineOptions::reuse_prompts off):
// codes only, then (with the codec) as many streaming syntheses, codes decoded to audio as
// they are made.
void cold_runs(const Model& model, const SynthesisRequest& req, bool codec, Results& r) {
    EngineOptions cold = req.engine;
    cold.reuse_prompts = false;
    Synthesizer synth(model, cold);
    std::vector<double> prefill, talker, predictor;
    for (int i = 0; i < r.runs; ++i) {
        GenerationReport rep;
        synth.generate_codes(req.text, req.options, {}, &rep);
        r.frames = rep.frames;
        r.positions = rep.prompt_positions;
        if (rep.frames == 0) continue;
        prefill.push_back(rep.prefill_ms);
        talker.push_back(rep.talker_ms / double(rep.frames));
        predictor.push_back(rep.predictor_ms / double(rep.frames));
    }
    r.prefill_ms = median(prefill);
    r.talker_ms = median(talker);
    r.predictor_ms = median(predictor);
    if (!codec) return;
    // The codec decoder loads on first use (here, before the runs: its load is part of a cold
    // start).
    Pipeline p;
    p.codec_load_ms = load_codec_decoder(model);
    p.codec_overlap = req.options.codec_overlap;
    std::vector<double> codec_ms, first_audio, rtf;
    for (int i = 0; i < r.runs; ++i) {
        SpeechReport rep;
        synth.speak(
            req.text, req.options, [](const float*, size_t) { return true; }, &rep);
        if (rep.samples == 0) continue;
        const double audio_ms = double(rep.samples) / double(model.sample_rate()) * 1e3;
        codec_ms.push_back(rep.codec_ms / audio_ms * 1e3);
        first_audio.push_back(rep.first_audio_ms);
        rtf.push_back(rep.total_ms / audio_ms);
    }
    p.codec_ms_per_audio_s = median(codec_ms);
    p.first_audio_ms = median(first_audio);
    p.rtf = median(rtf);
    r.pipeline = p;
}

// A request in the voice of the one before (another sentence, then the bench's), which runs
// only the part of its prompt after the voice: its prefill, and its first audio with the
// codec; each request up to its first frame or first audio. After cold_runs, whose
// Synthesizer is gone by then (peak RSS holds one).
void same_voice_runs(const Model& model, const SynthesisRequest& req, bool codec, Results& r) {
    Synthesizer synth(model, req.engine);
    SynthesisOptions before = req.options;
    before.max_frames = before.min_frames = 1;
    const std::string other_text = "Here is another sentence first.";
    std::vector<double> prefill;
    for (int i = 0; i < r.runs; ++i) {
        synth.generate_codes(other_text, before);
        GenerationReport rep;
        synth.generate_codes(
            req.text, req.options, [](const int32_t*) { return false; }, &rep);
        prefill.push_back(rep.prefill_ms);
        r.reused_positions = rep.reused_positions;
    }
    r.prefill_same_voice_ms = median(prefill);
    if (!codec) return;
    std::vector<double> first_audio;
    for (int i = 0; i < r.runs; ++i) {
        synth.speak(other_text, before, [](const float*, size_t) { return true; });
        SpeechReport rep;
        synth.speak(
            req.text, req.options, [](const float*, size_t) { return false; }, &rep);
        first_audio.push_back(rep.first_audio_ms);
    }
    r.pipeline->first_audio_same_voice_ms = median(first_audio);
}

}  // namespace

int cmd_bench(const Args& args) {
    if (args.has("streams")) return bench_streams(args);
    check_synthesis_args(args);
    const int frames = args.get_int("frames", 32, 1);
    Results r;
    r.runs = args.get_int("runs", 3, 1);
    // The machine first, on the threads the run will use, before the model takes memory.
    EngineOptions probe_engine = parse_engine(args);
    r.machine = measure_machine(probe_engine);
    probe_engine.threads = r.machine.threads;  // resolved and capped (warned) once

    const auto t0 = std::chrono::steady_clock::now();
    const Model model = load_model(args);
    r.load_ms = ms_since(t0);
    r.info = model.info();
    r.traffic = frame_weight_bytes(model);

    // Defaults for a benchmark: a fixed sentence and the first speaker.
    SynthesisRequest req = parse_synthesis(
        args, model,
        "The quick brown fox jumps over the lazy dog, and then it runs back home again.",
        r.info.type == "custom_voice" && !r.info.speakers.empty() ? r.info.speakers.front() : "");
    req.engine.threads = r.machine.threads;  // resolved (and capped, with its warning) above
    // Exactly `frames` frames per run: runs compare only at the same length.
    req.options.max_frames = req.options.min_frames = frames;
    const bool codec = !args.flag("no-codec");
    if (codec) {
        req.options.codec_decode = "streaming";
        req.options.codec_overlap = args.get("codec-overlap", req.options.codec_overlap);
    }
    cold_runs(model, req, codec, r);
    same_voice_runs(model, req, codec, r);
    r.peak_rss_mb = peak_rss_mb();  // before the second probe's buffer
    // This machine's bandwidth moves by up to 3x within minutes (docs/benchmarks.md): the
    // floor takes the better of a probe before and one after the runs.
    r.read_probes = {r.machine.read_gb_per_s, measure_machine(probe_engine).read_gb_per_s};
    r.machine.read_gb_per_s = std::max(r.read_probes[0], r.read_probes[1]);
    if (args.flag("json"))
        print_json(r);
    else
        print_text(r);
    return 0;
}

}  // namespace qwen3tts::cli
