// The options shared by every subcommand that synthesises (codes, speak, bench).
#pragma once

#include <set>
#include <string>

#include "args.hpp"
#include "qwen3tts/qwen3tts.hpp"

namespace qwen3tts::cli {

extern const std::set<std::string> kSynthesisOptions;
extern const std::set<std::string> kSynthesisFlags;

struct SynthesisRequest {
    std::string text;
    SynthesisOptions options;
    EngineOptions engine;
};

// Loads the model named by --model and fills the request from the arguments, on top of the
// checkpoint's generation_config.json defaults.
SynthesisRequest parse_synthesis(const Args& args, const Model& model);
LoadOptions parse_load_options(const Args& args);

}  // namespace qwen3tts::cli
