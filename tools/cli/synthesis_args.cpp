#include "synthesis_args.hpp"

#include <cstdio>
#include <fstream>

namespace qwen3tts::cli {

namespace {

// --voice takes a .voice file; an audio file there is a common slip worth naming.
void refuse_audio_as_voice(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    char head[4] = {};
    if (!f.read(head, 4)) return;  // Voice::load reports what is wrong
    const std::string magic(head, 4);
    const bool audio = magic == "RIFF" || magic == "fLaC" || magic == "OggS" ||
                       magic.compare(0, 3, "ID3") == 0 ||
                       (uint8_t(head[0]) == 0xFF && (uint8_t(head[1]) & 0xE0) == 0xE0);
    if (audio)
        throw Error(ErrorCode::invalid_argument,
                    "--voice " + path +
                        " is an audio file, not a voice file: clone from it with --ref-audio " +
                        path +
                        " --ref-text '...', or make a reusable voice file with "
                        "`qwen3tts voice`");
}

// The seed, sampling and length options: the ones whose values need no model to check.
void apply_numeric_options(const Args& args, SynthesisOptions& o) {
    if (args.has("seed")) o.seed = args.get_u64("seed");
    using R = Args::Range;
    if (args.flag("greedy")) o.talker.do_sample = o.predictor.do_sample = false;
    o.talker.temperature = args.get_float("temperature", o.talker.temperature, R::positive);
    o.talker.top_k = args.get_int("top-k", o.talker.top_k, 0);
    o.talker.top_p = args.get_float("top-p", o.talker.top_p, R::probability);
    o.talker.repetition_penalty =
        args.get_float("repetition-penalty", o.talker.repetition_penalty, R::positive);
    o.predictor.temperature =
        args.get_float("subtalker-temperature", o.predictor.temperature, R::positive);
    o.predictor.top_k = args.get_int("subtalker-top-k", o.predictor.top_k, 0);
    o.predictor.top_p = args.get_float("subtalker-top-p", o.predictor.top_p, R::probability);
    o.max_frames = args.get_int("max-frames", o.max_frames, 1);
    if (args.declares("min-frames")) o.min_frames = args.get_int("min-frames", o.min_frames, 0);
    if (args.declares("segment-chars"))
        o.segment_chars = args.get_int("segment-chars", o.segment_chars, 0);
}

Voice load_voice_option(const Args& args) {
    if (args.has("ref-audio"))
        throw Error(ErrorCode::invalid_argument, "give either --voice or --ref-audio, not both");
    refuse_audio_as_voice(args.get("voice"));
    return Voice::load(args.get("voice"));
}

}  // namespace

void warn(const std::string& message) {
    std::fprintf(stderr, "qwen3tts: warning: %s\n", message.c_str());
}

LoadOptions parse_load_options(const Args& args) {
    LoadOptions o;
    if (args.declares("pretokenizer")) o.pretokenizer = args.get("pretokenizer", o.pretokenizer);
    if (args.declares("no-mmap")) o.mmap = !args.flag("no-mmap");
    if (args.declares("quant")) o.quant = args.get("quant", o.quant);
    if (args.declares("codec-conv")) o.codec_conv = args.get("codec-conv", o.codec_conv);
    return o;
}

Model load_model(const Args& args) {
    return Model::load(args.get("model", kDefaultModel), parse_load_options(args));
}

Model load_model_light(const Args& args) {
    LoadOptions o = parse_load_options(args);
    o.copy_frame_weights = false;
    return Model::load(args.get("model", kDefaultModel), o);
}

SynthesisOptions parse_options(const Args& args, const Model& model,
                               const std::string& default_speaker) {
    SynthesisOptions o = model.default_options();
    o.language = args.get("language", o.language);
    o.speaker = args.get("speaker", default_speaker);
    if (args.has("instruct")) o.instruct = read_text_option(args, "instruct");
    o.text_layout = args.get("text-layout", o.text_layout);
    apply_numeric_options(args, o);
    if (args.has("voice")) o.voice = load_voice_option(args);
    if (args.has("ref-audio")) {
        VoiceCloneOptions vo;
        vo.x_vector_only = args.flag("x-vector-only");
        if (args.has("ref-text")) {
            vo.ref_text = read_text_option(args, "ref-text");
            if (vo.x_vector_only)
                warn("--ref-text is ignored with --x-vector-only (that mode uses no transcript)");
        }
        o.voice = model.clone_voice(args.get("ref-audio"), vo);
    } else if (args.has("ref-text") || args.flag("x-vector-only")) {
        throw Error(ErrorCode::invalid_argument, "--ref-text and --x-vector-only need --ref-audio");
    }
    if (args.flag("greedy") && (args.has("temperature") || args.has("top-k") || args.has("top-p") ||
                                args.has("subtalker-temperature") || args.has("subtalker-top-k") ||
                                args.has("subtalker-top-p")))
        warn(
            "--greedy ignores temperature, top-k and top-p (as the official do_sample=False "
            "does)");
    return o;
}

void require_speaker(const Model& model, const SynthesisOptions& options) {
    const ModelInfo info = model.info();
    if (info.type == "custom_voice" && options.speaker.empty()) {
        std::string list;
        for (const auto& s : info.speakers) list += (list.empty() ? "" : ", ") + s;
        throw Error(ErrorCode::invalid_argument,
                    "this CustomVoice model needs --speaker (one of: " + list + ")");
    }
}

void check_synthesis_args(const Args& args) {
    SynthesisOptions o;
    apply_numeric_options(args, o);
    if (args.has("voice")) load_voice_option(args);
    parse_engine(args);
}

EngineOptions parse_engine(const Args& args) {
    EngineOptions e;
    e.threads = args.get_int("threads", 0, 0);
    // More threads than online CPUs are capped (with a warning) unless asked for explicitly.
    e.oversubscribe = args.flag("oversubscribe");
    const std::string kernels = args.get("kernels", "fast");
    if (kernels == "reference")
        e.kernels = Kernels::reference;
    else if (kernels != "fast")
        throw Error(ErrorCode::invalid_argument,
                    "--kernels must be fast or reference, got '" + kernels + "'");
    return e;
}

SynthesisRequest parse_synthesis(const Args& args, const Model& model,
                                 const std::string& default_text,
                                 const std::string& default_speaker) {
    SynthesisRequest r;
    r.text =
        args.has("text") || default_text.empty() ? read_text_option(args, "text") : default_text;
    r.options = parse_options(args, model, default_speaker);
    require_speaker(model, r.options);
    r.engine = parse_engine(args);
    return r;
}

}  // namespace qwen3tts::cli
