// qwen3tts codes: text → codec frames, saved as an int64 .npy [frames, 16].
#include <cstdio>

#include "commands.hpp"
#include "progress.hpp"
#include "synthesis_args.hpp"

namespace qwen3tts::cli {

int cmd_codes(const Args& args) {
    const Model model = load_model(args);
    const SynthesisRequest req = parse_synthesis(args, model);
    Synthesizer synth(model, req.engine);
    Progress progress("generating", args.flag("quiet"), model.sample_rate());
    int64_t frames = 0;
    GenerationReport report;
    const auto codes = synth.generate_codes(
        req.text, req.options,
        [&](const int32_t*) {
            progress.frames(++frames);
            return true;
        },
        &report);
    progress.finish();
    save_codes_npy(args.get("out"), codes, model);
    std::fprintf(stderr, "%lld frames (%s) → %s; seed %llu\n",
                 static_cast<long long>(report.frames),
                 report.stopped_at_eos ? "end of speech" : "frame limit reached",
                 args.get("out").c_str(), static_cast<unsigned long long>(report.seed));
    return 0;
}

}  // namespace qwen3tts::cli
