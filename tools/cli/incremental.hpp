// speak|codes --text - --incremental: standard input is fed to one request as it arrives
// (streaming text input, e.g. piped from an LLM), so speech starts before the text has ended.
#pragma once

#include "args.hpp"
#include "synthesis_args.hpp"

namespace qwen3tts::cli {

// The request's options (text empty: it comes from standard input); checks --text -.
SynthesisRequest parse_incremental(const Args& args, const Model& model);
// Runs it on a Scheduler, pushing standard input as it arrives (trailing line breaks dropped,
// as --text - does); an Error when it failed.
SpeechReport run_incremental(const Model& model, const SynthesisRequest& request,
                             RequestCallbacks callbacks);

}  // namespace qwen3tts::cli
