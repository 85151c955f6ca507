// The options shared by every subcommand that synthesises (codes, speak, bench).
#pragma once

#include <string>

#include "args.hpp"
#include "qwen3tts/qwen3tts.hpp"

namespace qwen3tts::cli {

struct SynthesisRequest {
    std::string text;
    SynthesisOptions options;
    EngineOptions engine;
};

// Fills the request from the arguments, on top of the checkpoint's generation_config.json
// defaults. default_text / default_speaker stand in for an absent --text / --speaker
// (bench); empty: --text is required.
SynthesisRequest parse_synthesis(const Args& args, const Model& model,
                                 const std::string& default_text = "",
                                 const std::string& default_speaker = "");
// The parts of it: the options without the text and without requiring a speaker (a batch
// file gives those per request), the speaker check, and the engine options.
SynthesisOptions parse_options(const Args& args, const Model& model,
                               const std::string& default_speaker = "");
void require_speaker(const Model& model, const SynthesisOptions& options);
EngineOptions parse_engine(const Args& args);
// Checks what parse_options and parse_engine would refuse without a model (numbers and ranges,
// the --voice file, engine options), so that a slip in an option fails at once instead of
// after a model load of seconds (1.7B: ~5 s). Call it before load_model.
void check_synthesis_args(const Args& args);
LoadOptions parse_load_options(const Args& args);
Model load_model(const Args& args);
// For the commands that do not synthesize (voice, encode, info): the weights every frame reads
// stay in the file's mapping (LoadOptions::copy_frame_weights = false): no copy of ~1-3.4 GB.
Model load_model_light(const Args& args);

// A warning on stderr, in the CLI's one format.
void warn(const std::string& message);

}  // namespace qwen3tts::cli
