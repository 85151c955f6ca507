// qwen3tts voice: reference audio → a reusable `.voice` file for the Base models.
#include <cstdio>

#include "commands.hpp"
#include "progress.hpp"
#include "synthesis_args.hpp"

namespace qwen3tts::cli {

int cmd_voice(const Args& args) {
    const Model model = load_model_light(args);
    VoiceCloneOptions o;
    o.x_vector_only = args.flag("x-vector-only");
    if (args.has("ref-text")) {
        o.ref_text = read_text_option(args, "ref-text");
        if (o.x_vector_only)
            warn("--ref-text is ignored with --x-vector-only (that mode uses no transcript)");
    }
    o.max_seconds = args.get_float("max-seconds", float(o.max_seconds), Args::Range::positive);
    // No progress callback for cloning: an elapsed-time line on a terminal.
    Progress progress("cloning", args.flag("quiet"), model.sample_rate());
    progress.start_elapsed_ticker();
    const Voice voice = model.clone_voice(args.get("ref-audio"), o);
    progress.finish();
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
