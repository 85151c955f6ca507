#include "synthesis_args.hpp"

#include <cstdio>

namespace qwen3tts::cli {

const std::set<std::string> kSynthesisOptions = {"model",
                                                 "text",
                                                 "language",
                                                 "speaker",
                                                 "instruct",
                                                 "text-layout",
                                                 "seed",
                                                 "temperature",
                                                 "top-k",
                                                 "top-p",
                                                 "repetition-penalty",
                                                 "max-frames",
                                                 "subtalker-temperature",
                                                 "subtalker-top-k",
                                                 "subtalker-top-p",
                                                 "threads",
                                                 "kernels",
                                                 "pretokenizer",
                                                 "quant",
                                                 "voice",
                                                 "ref-audio",
                                                 "ref-text"};
const std::set<std::string> kSynthesisFlags = {"greedy", "x-vector-only", "no-mmap",
                                               "oversubscribe"};

LoadOptions parse_load_options(const Args& args) {
    LoadOptions o;
    o.pretokenizer = args.get("pretokenizer", o.pretokenizer);
    o.quant = args.get("quant", o.quant);
    o.mmap = !args.flag("no-mmap");
    return o;
}

SynthesisRequest parse_synthesis(const Args& args, const Model& model) {
    SynthesisRequest r;
    if (!args.has("text"))
        throw Error(ErrorCode::invalid_argument, "--text is required (use --text - for stdin)");
    r.text = read_text_argument(args.get("text"));
    SynthesisOptions& o = r.options;
    o = model.default_options();
    o.language = args.get("language", "auto");
    o.speaker = args.get("speaker");
    o.instruct = args.get("instruct");
    o.text_layout = args.get("text-layout", "auto");
    const int seed = args.get_int("seed", 0);
    if (seed < 0) throw Error(ErrorCode::invalid_argument, "--seed must be >= 0");
    o.seed = uint64_t(seed);
    if (args.flag("greedy")) o.talker.do_sample = o.predictor.do_sample = false;
    o.talker.temperature = args.get_float("temperature", o.talker.temperature);
    o.talker.top_k = args.get_int("top-k", o.talker.top_k);
    o.talker.top_p = args.get_float("top-p", o.talker.top_p);
    o.talker.repetition_penalty = args.get_float("repetition-penalty", o.talker.repetition_penalty);
    o.predictor.temperature = args.get_float("subtalker-temperature", o.predictor.temperature);
    o.predictor.top_k = args.get_int("subtalker-top-k", o.predictor.top_k);
    o.predictor.top_p = args.get_float("subtalker-top-p", o.predictor.top_p);
    o.max_frames = args.get_int("max-frames", o.max_frames);
    if (o.max_frames <= 0)
        throw Error(ErrorCode::invalid_argument, "--max-frames must be at least 1");

    if (args.has("voice") && args.has("ref-audio"))
        throw Error(ErrorCode::invalid_argument, "give either --voice or --ref-audio, not both");
    if (args.has("voice")) o.voice = Voice::load(args.get("voice"));
    if (args.has("ref-audio")) {
        VoiceCloneOptions vo;
        vo.ref_text = args.has("ref-text") ? read_text_argument(args.get("ref-text")) : "";
        vo.x_vector_only = args.flag("x-vector-only");
        o.voice = model.clone_voice(args.get("ref-audio"), vo);
    } else if (args.has("ref-text") || args.flag("x-vector-only")) {
        throw Error(ErrorCode::invalid_argument, "--ref-text and --x-vector-only need --ref-audio");
    }
    if (args.flag("greedy") && (args.has("temperature") || args.has("top-k") || args.has("top-p") ||
                                args.has("subtalker-temperature") || args.has("subtalker-top-k") ||
                                args.has("subtalker-top-p")))
        std::fprintf(stderr,
                     "qwen3tts: warning: --greedy ignores temperature, top-k and top-p "
                     "(as the official do_sample=False does)\n");

    const ModelInfo info = model.info();
    if (info.type == "custom_voice" && o.speaker.empty()) {
        std::string list;
        for (const auto& s : info.speakers) list += (list.empty() ? "" : ", ") + s;
        throw Error(ErrorCode::invalid_argument,
                    "this CustomVoice model needs --speaker (one of: " + list + ")");
    }
    r.engine.threads = args.get_int("threads", 0);
    if (r.engine.threads < 0)
        throw Error(ErrorCode::invalid_argument,
                    "--threads must be >= 0 (0 = all online CPUs), got " +
                        std::to_string(r.engine.threads));
    // More threads than online CPUs are capped (with a warning) unless asked for explicitly.
    r.engine.oversubscribe = args.flag("oversubscribe");
    const std::string kernels = args.get("kernels", "fast");
    if (kernels == "reference")
        r.engine.kernels = Kernels::reference;
    else if (kernels != "fast")
        throw Error(ErrorCode::invalid_argument,
                    "--kernels must be fast or reference, got '" + kernels + "'");
    return r;
}

}  // namespace qwen3tts::cli
