// What benchmarks (`qwen3tts bench`) state their results against: the machine's measured
// ceilings and the bytes of weights one frame must read. Decoding one frame cannot take less
// than frame_weight_bytes() over the read bandwidth on that machine (the floor).
#pragma once

#include <cstddef>
#include <optional>

#include "qwen3tts/export.h"
#include "qwen3tts/qwen3tts.hpp"

namespace qwen3tts {

struct MachinePeaks {
    int threads = 0;                    // threads measured on (EngineOptions::threads resolved)
    double read_gb_per_s = 0;           // all threads streaming through a 256 MiB buffer
    double fp32_gflops = 0;             // FMA chains on every thread (an FMA counts two)
    std::optional<double> bf16_gflops;  // vdpbf16ps; none without AVX512_BF16
};

// Measures this machine now, in about 0.2 s (best of three short repetitions each), using a
// 256 MiB buffer freed on return. threads as EngineOptions::threads (0 = online CPUs; more
// are capped with a warning unless oversubscribe). Run it while nothing else runs in the
// process.
QWEN3TTS_API MachinePeaks measure_machine(const EngineOptions& options = {});

// Bytes of weights one generated frame reads: the talker's decoder layers and codec_head once,
// the code predictor's layers (and input projection) once per codebook 1..15 and its 15
// heads. Decoder layers count at the size the model holds them (LoadOptions::quant), heads as
// stored; embedding rows (a few KB) are left out.
struct FrameWeightBytes {
    size_t talker = 0;
    size_t predictor = 0;
    size_t total() const { return talker + predictor; }
};
QWEN3TTS_API FrameWeightBytes frame_weight_bytes(const Model& model);

// Loads the model's codec decoder now (it otherwise loads on the first speech of a process)
// and returns how long that took, in ms (about 0 when it was loaded already).
QWEN3TTS_API double load_codec_decoder(const Model& model);

}  // namespace qwen3tts
