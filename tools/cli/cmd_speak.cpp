// qwen3tts speak: text → audio file (or stdout). With --stream, audio is written and flushed
// frame by frame as it is generated, so `--out -` piped into a player starts playing after
// the first frame; with --incremental the text is read from standard input as it arrives;
// --batch runs a file of requests at once (batch.cpp).
#include <cstdio>

#include "batch.hpp"
#include "commands.hpp"
#include "incremental.hpp"
#include "progress.hpp"
#include "synthesis_args.hpp"

namespace qwen3tts::cli {

namespace {

std::string lower_extension(const std::string& path) {
    const auto slash = path.rfind('/');
    const auto dot = path.rfind('.');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
    std::string e = path.substr(dot + 1);
    for (auto& c : e) c = char(std::tolower(static_cast<unsigned char>(c)));
    return e;
}

// --format must not contradict the extension of --out (a .wav file holding MP3 is a trap);
// an extension that names no audio format leaves --format free.
void check_format_matches_extension(const std::string& out, const std::string& format) {
    if (format.empty() || out == "-") return;
    const std::string ext = lower_extension(out);
    struct Kind {
        const char* ext;
        const char* formats;  // accepted --format values, joined by " or "
    };
    static const Kind kinds[] = {{"wav", "wav or wav-f32"},
                                 {"flac", "flac"},
                                 {"ogg", "opus"},
                                 {"opus", "opus"},
                                 {"mp3", "mp3"},
                                 {"pcm", "pcm"},
                                 {"raw", "pcm"},
                                 {"npy", "npy"}};
    for (const Kind& k : kinds) {
        if (ext != k.ext) continue;
        const std::string accepted = std::string(" ") + k.formats + " ";
        if (accepted.find(" " + format + " ") == std::string::npos)
            throw Error(ErrorCode::invalid_argument,
                        "--format " + format + " contradicts --out " + out + " (a ." + ext +
                            " file is written as " + k.formats +
                            "); change the extension or drop --format");
    }
}

std::string destination(const std::string& out) {
    return out == "-" ? "stdout" : out;
}

}  // namespace

int cmd_speak(const Args& args) {
    if (args.has("batch")) return run_batch(args, true);
    const std::string out = args.get("out");
    const std::string format = args.get("format");
    check_format_matches_extension(out, format);
    check_synthesis_args(args);
    const Model model = load_model(args);
    const bool incremental = args.flag("incremental");
    SynthesisRequest req =
        incremental ? parse_incremental(args, model) : parse_synthesis(args, model);
    req.options.codec_decode = args.get("codec-decode", req.options.codec_decode);
    req.options.codec_overlap = args.get("codec-overlap", req.options.codec_overlap);
    const bool stream = args.flag("stream");
    if ((stream || incremental) && req.options.codec_decode != "streaming")
        throw Error(ErrorCode::invalid_argument,
                    std::string(stream ? "--stream" : "--incremental") +
                        " needs --codec-decode streaming (official-chunked decodes at the end)");
    // Opened before synthesis so that a bad path fails at once; removed unless finished.
    AudioFileWriter writer(out, model.sample_rate(), format);
    Progress progress("speaking", args.flag("quiet"), model.sample_rate());
    int64_t samples = 0;
    auto on_audio = [&](const float* data, size_t n) {
        writer.write(data, n);
        if (stream) writer.flush();
        samples += int64_t(n);
        progress.samples(samples);
        return true;
    };
    SpeechReport report;
    if (incremental) {
        RequestCallbacks cb;
        cb.on_audio = on_audio;
        report = run_incremental(model, req, std::move(cb));
    } else {
        Synthesizer synth(model, req.engine);
        synth.speak(req.text, req.options, on_audio, &report);
    }
    writer.finish();
    progress.finish();
    const double audio_s = double(report.samples) / double(model.sample_rate());
    std::fprintf(stderr,
                 "qwen3tts: %.2f s of audio (%lld frames, %s) → %s; time to first audio %.0f ms, "
                 "real-time factor %.3f, seed %llu\n",
                 audio_s, static_cast<long long>(report.generation.frames),
                 report.generation.stopped_at_eos ? "end of speech" : "frame limit reached",
                 destination(out).c_str(), report.first_audio_ms,
                 audio_s > 0 ? report.total_ms / 1000.0 / audio_s : 0.0,
                 static_cast<unsigned long long>(report.generation.seed));
    return 0;
}

int cmd_decode(const Args& args) {
    const std::string out = args.get("out");
    const std::string format = args.get("format");
    check_format_matches_extension(out, format);
    const int threads = args.get_int("threads", 0, 0);
    const Model model = load_model(args);
    const auto codes = load_codes_npy(args.get("codes"), model);
    AudioFileWriter writer(out, model.sample_rate(), format);
    const auto wav = model.decode(codes, args.get("codec-decode", "streaming"), threads);
    writer.write(wav.data(), wav.size());
    writer.finish();
    std::fprintf(stderr, "qwen3tts: %zu frames → %.2f s of audio → %s\n",
                 codes.size() / size_t(model.info().n_codebook),
                 double(wav.size()) / model.sample_rate(), destination(out).c_str());
    return 0;
}

}  // namespace qwen3tts::cli
