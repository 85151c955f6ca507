// Seeded random mixes of requests for one checkpoint, for the tests that run many requests on
// one engine (a Synthesizer's calls one after the other, a Scheduler's batch) against each
// request's solo run: speakers, languages, instructions or cloned voices (by the checkpoint's
// kind), the three text layouts, long texts in segments, greedy and sampled, 2-10 frames.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "qwen3tts/qwen3tts.hpp"

namespace qwen3tts::testing {

struct MixCase {
    std::string text;
    SynthesisOptions options;
    int64_t join_after = 0;  // frames made before it is submitted (non-decreasing over a mix)
    int64_t stop_at = 0;     // > 0: stopped from its frame callback at that frame
    int pieces = 0;          // > 0: its text given in that many pieces (streaming layout)
};

// A test's parameter: which checkpoint (tests/data/models), seed, and LoadOptions::quant.
struct MixParam {
    std::string model;
    uint32_t seed;
    std::string quant = "";  // "" (as stored) or e.g. "talker=q4"
};
void PrintTo(const MixParam& m, std::ostream* os);
// "custom_voice_3" for tiny-custom_voice and seed 3 ("custom_voice_3_talker_q4" with a quant).
std::string mix_name(const MixParam& m);
// The checkpoint loaded as the parameter says.
Model load_mix_model(const MixParam& m);

// `count` cases drawn from `seed`; the same seed gives the same mix.
std::vector<MixCase> draw_mix(const Model& model, uint32_t seed, int count);

struct SoloRun {
    std::vector<int32_t> codes;
    std::vector<float> audio;
};

// The case alone on a fresh Synthesizer that runs every prompt whole (no reuse): its codes,
// then its audio.
SoloRun solo_run(const Model& model, const MixCase& c);

}  // namespace qwen3tts::testing
