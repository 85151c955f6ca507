// qwen3tts codes: text → codec frames, saved as an int64 .npy [frames, 16]; --incremental
// reads the text from standard input as it arrives, --batch runs a file of requests at once.
#include <cstdio>

#include "batch.hpp"
#include "commands.hpp"
#include "incremental.hpp"
#include "progress.hpp"
#include "synthesis_args.hpp"

namespace qwen3tts::cli {

int cmd_codes(const Args& args) {
    if (args.has("batch")) return run_batch(args, false);
    check_synthesis_args(args);
    const Model model = load_model(args);
    const bool incremental = args.flag("incremental");
    const SynthesisRequest req =
        incremental ? parse_incremental(args, model) : parse_synthesis(args, model);
    Progress progress("generating", args.flag("quiet"), model.sample_rate());
    int64_t frames = 0;
    GenerationReport report;
    std::vector<int32_t> codes;
    if (incremental) {
        RequestCallbacks cb;
        const int n_codebook = model.info().n_codebook;
        cb.on_frame = [&, n_codebook](const int32_t* f) {
            codes.insert(codes.end(), f, f + n_codebook);
            progress.frames(++frames);
            return true;
        };
        report = run_incremental(model, req, std::move(cb)).generation;
    } else {
        Synthesizer synth(model, req.engine);
        codes = synth.generate_codes(
            req.text, req.options,
            [&](const int32_t*) {
                progress.frames(++frames);
                return true;
            },
            &report);
    }
    progress.finish();
    save_codes_npy(args.get("out"), codes, model);
    std::fprintf(stderr, "%lld frames (%s) → %s; seed %llu\n",
                 static_cast<long long>(report.frames),
                 report.stopped_at_eos ? "end of speech" : "frame limit reached",
                 args.get("out").c_str(), static_cast<unsigned long long>(report.seed));
    return 0;
}

}  // namespace qwen3tts::cli
