// The bytes of weights one generated frame reads: the memory-bandwidth floor of decoding, one
// token at a time (docs/benchmarks.md). Decoder layers count at the size the model holds them
// (quantized codes and scales under LoadOptions::quant); heads and the predictor's input
// projection as stored. Embedding rows (a few KB per frame) are left out.
#pragma once

#include <cstddef>

#include "model/tts_model.hpp"

namespace qwen3tts {

struct FrameTraffic {
    size_t talker_bytes = 0;     // decoder layers once + codec_head
    size_t predictor_bytes = 0;  // (n_codebook - 1) steps × (layers + projection) + heads
    size_t total() const { return talker_bytes + predictor_bytes; }
};

FrameTraffic frame_traffic(const TtsModel& model);

}  // namespace qwen3tts
