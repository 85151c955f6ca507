// The two steps of generation, written once for any number of requests: a chunk of one
// request's prompt (prefill), and one frame for each of several requests together (the
// talker step and the 15 code-predictor steps as batched forwards, weights read once). A
// request's frames do not depend on the other requests of a batch nor on when it joined:
// every op computes each row on its own, in an order that does not depend on the batch size
// (docs/batching.md).
#pragma once

#include <functional>

#include "backend/ops.hpp"
#include "runtime/stream_state.hpp"

namespace qwen3tts {

// Prompt positions per prefill chunk: a long prompt is run in pieces so that the requests
// already speaking are not stalled for more than about a frame's compute. The chunking
// depends on the prompt alone, so a request's numbers do not depend on how busy we are.
constexpr int64_t kPrefillChunk = 32;

// Buffers for stepping up to `streams` requests at once (reused; no allocation per step).
struct StepScratch {
    int64_t streams = 0;
    DecoderScratch talker;
    CodePredictor::Scratch predictor;
    std::vector<float> x, hidden, logits;  // [rows, H], [rows, H], [streams, vocab]
    std::vector<int32_t> codes;            // [streams, 16]
    std::vector<KvCache*> caches;
    std::vector<DecoderStack::Segment> segments;
    std::vector<StreamState*> row_states;  // the request of each talker row
    void reserve(const TtsModel& model, int64_t streams);
};

// Runs the next chunk (at most kPrefillChunk positions) of a prefilling request's prompt;
// after the last one, draws its first codebook-0 token. Errors of the request end it
// (state.error), they are not thrown.
void prefill_step(const backend::ExecContext& ctx, const TtsModel& model, StreamState& state,
                  StepScratch& scratch);

// One frame for each of `count` steppable requests: codebooks 1..15 of the frame whose
// codebook 0 was drawn, the frame handed to on_frame, then `frames_out` (if set: the caller's
// work on the new frames, e.g. their codec packets, which should not wait for the talker), then
// the talker step that draws the next codebook 0 for those not finished by then. A request
// that ends (EOS, frame limit, on_frame false, an error of its own) gets finished = true; the
// others are not disturbed.
void decode_step(const backend::ExecContext& ctx, const TtsModel& model, StreamState* const* states,
                 int64_t count, StepScratch& scratch,
                 const std::function<void()>& frames_out = nullptr);

}  // namespace qwen3tts
