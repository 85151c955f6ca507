// qwen3tts bench: load time, prefill, and per-frame cost of talker and code predictor,
// with the weight bytes each frame must read (the memory-bandwidth floor), and peak RSS.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "bench_streams.hpp"
#include "commands.hpp"
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

}  // namespace

int cmd_bench(const Args& args) {
    if (args.has("streams")) return bench_streams(args);
    const auto t0 = std::chrono::steady_clock::now();
    const Model model = load_model(args);
    const double load_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    const ModelInfo info = model.info();

    // Defaults for a benchmark: a fixed sentence and the first speaker.
    SynthesisRequest req = parse_synthesis(
        args, model,
        "The quick brown fox jumps over the lazy dog, and then it runs back home again.",
        info.type == "custom_voice" && !info.speakers.empty() ? info.speakers.front() : "");
    const int frames = args.get_int("frames", 32, 1);
    const int runs = args.get_int("runs", 3, 1);
    req.options.max_frames = frames;
    // A random-weight model may stop at EOS early: suppress nothing, just report frames.
    Synthesizer synth(model, req.engine);
    std::vector<double> prefill, talker, predictor;
    int64_t produced = 0, positions = 0;
    for (int r = 0; r < runs; ++r) {
        GenerationReport rep;
        synth.generate_codes(req.text, req.options, {}, &rep);
        produced = rep.frames;
        positions = rep.prompt_positions;
        if (rep.frames == 0) continue;
        prefill.push_back(rep.prefill_ms);
        talker.push_back(rep.talker_ms / double(rep.frames));
        predictor.push_back(rep.predictor_ms / double(rep.frames));
    }
    std::printf("model            %s (%s %s)\n", info.dir.c_str(), info.size.c_str(),
                info.type.c_str());
    std::printf("threads          %d\n", req.engine.threads);
    std::printf("load             %.1f ms\n", load_ms);
    std::printf("prompt           %lld positions\n", static_cast<long long>(positions));
    std::printf("frames per run   %lld (median of %d runs below)\n",
                static_cast<long long>(produced), runs);
    std::printf("prefill          %.1f ms\n", median(prefill));
    std::printf("talker           %.2f ms/frame\n", median(talker));
    std::printf("code predictor   %.2f ms/frame\n", median(predictor));
    const double per_frame = median(talker) + median(predictor);
    std::printf(
        "total            %.2f ms/frame (real-time factor %.3f at 80 ms of audio per frame)\n",
        per_frame, per_frame / 80.0);
    if (!args.flag("no-codec")) {
        // The whole pipeline: frames decoded to audio as they are generated.
        std::vector<double> codec, first_audio, rtf;
        for (int r = 0; r < runs; ++r) {
            SpeechReport rep;
            synth.speak(
                req.text, req.options, [](const float*, size_t) { return true; }, &rep);
            if (rep.generation.frames == 0) continue;
            codec.push_back(rep.codec_ms / double(rep.generation.frames));
            first_audio.push_back(rep.first_audio_ms);
            rtf.push_back(rep.total_ms / (double(rep.samples) / 24.0));
        }
        const double codec_ms = median(codec);
        std::printf("codec decoder    %.2f ms/frame (%.0f ms per second of audio)\n", codec_ms,
                    codec_ms * 12.5);
        std::printf("first audio      %.1f ms after the prompt is built\n", median(first_audio));
        std::printf("pipeline         real-time factor %.3f (talker + predictor + codec)\n",
                    median(rtf));
    }
    std::printf("peak RSS         %.0f MB\n", peak_rss_mb());
    return 0;
}

}  // namespace qwen3tts::cli
