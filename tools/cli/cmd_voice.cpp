// qwen3tts voice: reference audio → a reusable `.voice` file for the Base models.
#include <cstdio>

#include "commands.hpp"
#include "synthesis_args.hpp"

namespace qwen3tts::cli {

int cmd_voice(int argc, char** argv) {
    const Args args(argc, argv,
                    {"model", "ref-audio", "ref-text", "out", "max-seconds", "pretokenizer"},
                    {"x-vector-only"});
    if (!args.has("ref-audio"))
        throw Error(ErrorCode::invalid_argument, "voice: --ref-audio FILE is required");
    if (!args.has("out"))
        throw Error(ErrorCode::invalid_argument, "voice: --out NAME.voice is required");
    const Model model = Model::load(args.get("model", kDefaultModel), parse_load_options(args));
    VoiceCloneOptions o;
    o.ref_text = args.has("ref-text") ? read_text_argument(args.get("ref-text")) : "";
    o.x_vector_only = args.flag("x-vector-only");
    o.max_seconds = args.get_float("max-seconds", float(o.max_seconds));
    const Voice voice = model.clone_voice(args.get("ref-audio"), o);
    voice.save(args.get("out"));
    std::fprintf(stderr, "qwen3tts: %s voice%s → %s\n",
                 voice.in_context() ? "in-context" : "x-vector-only",
                 voice.in_context()
                     ? (" (" + std::to_string(voice.ref_frames()) + " reference frames)").c_str()
                     : "",
                 args.get("out").c_str());
    return 0;
}

}  // namespace qwen3tts::cli
