// Public SynthesisOptions → the runtime's prompt request and generation parameters (one
// place for the Synthesizer and the Scheduler, so both validate and map options alike).
#pragma once

#include <string>
#include <vector>

#include "api/model_impl.hpp"
#include "model/prompt.hpp"
#include "qwen3tts/qwen3tts.hpp"
#include "runtime/stream_state.hpp"

namespace qwen3tts {

// The prompt request of `text` with `options` (the voice, if any, is checked against the
// model and pointed to, not copied: it must outlive the request).
PromptRequest prompt_request(const Model::Impl& model, const std::string& text,
                             const SynthesisOptions& options);

// Sampling, frame limit and seed (a random one when options.seed is unset).
GenerationParams generation_params(const Model::Impl& model, const SynthesisOptions& options);

GenerationReport generation_report(const GenerationStats& stats, uint64_t seed);

// options.segment_chars, checked (0: the whole text at once).
size_t segment_chars(const SynthesisOptions& options);

// The texts a call speaks one after the other: `text`, or its segments when
// options.segment_chars > 0 (text/text_segments.hpp).
std::vector<std::string> spoken_segments(const std::string& text, const SynthesisOptions& options);

}  // namespace qwen3tts
