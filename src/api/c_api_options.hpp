// The C synthesis options and report as the C++ ones, shared by the synthesizer and the
// scheduler entry points (defined in c_api_synthesis.cpp).
#pragma once

#include <cstddef>

#include "qwen3tts/qwen3tts.h"
#include "qwen3tts/qwen3tts.hpp"

namespace qwen3tts::capi {

// The caller's options (NULL = the model's defaults; fields past its struct_size too), checked.
SynthesisOptions to_options(const Model& model, const qwen3tts_options* options);
// Codes per frame of the model's frames.
size_t frame_width(const Model& model);
// The caller's report struct_size, checked before any work (0 for NULL).
size_t report_size(const qwen3tts_report* report);
// Writes r into the first `size` bytes of *out (nothing for NULL).
void hand_out_report(const SpeechReport& r, bool cancelled, qwen3tts_report* out, size_t size);

}  // namespace qwen3tts::capi
