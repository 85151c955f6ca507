// qwen3tts speak: text → audio file (or stdout). With --stream, audio is written and flushed
// frame by frame as it is generated, so `--out -` piped into a player starts playing after
// the first frame.
#include <chrono>
#include <cstdio>

#include "commands.hpp"
#include "synthesis_args.hpp"

namespace qwen3tts::cli {

int cmd_speak(int argc, char** argv) {
    auto options = kSynthesisOptions;
    options.insert({"out", "format", "codec-decode"});
    auto flags = kSynthesisFlags;
    flags.insert("stream");
    const Args args(argc, argv, options, flags);
    if (!args.has("out"))
        throw Error(ErrorCode::invalid_argument, "speak: --out FILE is required (- for stdout)");
    const std::string out = args.get("out");

    const Model model = Model::load(args.get("model", kDefaultModel), parse_load_options(args));
    SynthesisRequest req = parse_synthesis(args, model);
    req.options.codec_decode = args.get("codec-decode", "streaming");
    const bool stream = args.flag("stream");
    if (stream && req.options.codec_decode != "streaming")
        throw Error(
            ErrorCode::invalid_argument,
            "--stream needs --codec-decode streaming (official-chunked decodes at the end)");
    Synthesizer synth(model, req.engine);
    // Opened before synthesis so that a bad path fails at once; removed unless finished.
    AudioFileWriter writer(out, model.sample_rate(), args.get("format", ""));
    SpeechReport report;
    synth.speak(
        req.text, req.options,
        [&](const float* samples, size_t n) {
            writer.write(samples, n);
            if (stream) writer.flush();
            return true;
        },
        &report);
    writer.finish();
    const double audio_s = double(report.samples) / double(model.sample_rate());
    std::fprintf(stderr,
                 "qwen3tts: %.2f s of audio (%lld frames, %s) → %s; time to first audio %.0f ms, "
                 "real-time factor %.3f\n",
                 audio_s, static_cast<long long>(report.generation.frames),
                 report.generation.stopped_at_eos ? "end of speech" : "frame limit reached",
                 out == "-" ? "stdout" : out.c_str(), report.first_audio_ms,
                 audio_s > 0 ? report.total_ms / 1000.0 / audio_s : 0.0);
    return 0;
}

int cmd_decode(int argc, char** argv) {
    const Args args(argc, argv, {"model", "codes", "out", "format", "codec-decode", "threads"}, {});
    if (!args.has("codes"))
        throw Error(ErrorCode::invalid_argument, "decode: --codes FILE.npy is required");
    if (!args.has("out"))
        throw Error(ErrorCode::invalid_argument, "decode: --out FILE is required");
    const std::string out = args.get("out");
    const Model model = Model::load(args.get("model", kDefaultModel));
    const auto codes = load_codes_npy(args.get("codes"), model);
    AudioFileWriter writer(out, model.sample_rate(), args.get("format", ""));
    const auto wav =
        model.decode(codes, args.get("codec-decode", "streaming"), args.get_int("threads", 0));
    writer.write(wav.data(), wav.size());
    writer.finish();
    std::fprintf(stderr, "qwen3tts: %zu frames → %.2f s of audio → %s\n",
                 codes.size() / size_t(model.info().n_codebook),
                 double(wav.size()) / model.sample_rate(), out == "-" ? "stdout" : out.c_str());
    return 0;
}

}  // namespace qwen3tts::cli
