// qwen3tts codes: text → codec frames, saved as an int64 .npy [frames, 16].
#include <cstdio>

#include "commands.hpp"
#include "synthesis_args.hpp"

namespace qwen3tts::cli {

int cmd_codes(int argc, char** argv) {
    auto options = kSynthesisOptions;
    options.insert("out");
    const Args args(argc, argv, options, kSynthesisFlags);
    if (!args.has("out"))
        throw Error(ErrorCode::invalid_argument, "codes: --out FILE.npy is required");
    const Model model = Model::load(args.get("model", kDefaultModel), parse_load_options(args));
    const SynthesisRequest req = parse_synthesis(args, model);
    Synthesizer synth(model, req.engine);
    GenerationReport report;
    const auto codes = synth.generate_codes(req.text, req.options, {}, &report);
    save_codes_npy(args.get("out"), codes, model);
    std::fprintf(stderr, "%lld frames (%s) → %s\n", static_cast<long long>(report.frames),
                 report.stopped_at_eos ? "end of speech" : "frame limit reached",
                 args.get("out").c_str());
    return 0;
}

}  // namespace qwen3tts::cli
