// One request's generation in progress: everything the talker and the code predictor carry
// from one frame to the next (prompt, KV caches, sampler, token history, position), so that a
// scheduler can step many requests together and a lone request is the batch-of-one case of
// the same code (runtime/frame_step.hpp).
#pragma once

#include <cstddef>
#include <exception>
#include <functional>
#include <vector>

#include "model/prompt.hpp"
#include "model/tts_model.hpp"
#include "nn/kv_cache.hpp"
#include "runtime/request_memory.hpp"
#include "runtime/sampler.hpp"

namespace qwen3tts {

struct GenerationParams {
    SamplingParams talker;     // codebook 0
    SamplingParams predictor;  // codebooks 1..15 (no repetition penalty, as official)
    // At most this many codebook-0 tokens are drawn, HF-style: without EOS the last one is
    // never expanded, so at most max_new_tokens - 1 frames come out (spec talker.md §5.5).
    int max_new_tokens = 8192;
    int min_new_tokens = 2;
    uint64_t seed = 0;

    // The official defaults of the checkpoint's generation_config.json.
    static GenerationParams defaults(const GenerationDefaults& d);
    void validate() const;
    // The parameters of segment i of a long text (SynthesisOptions::segment_chars): these,
    // sampling with seed + i, so that a segment gives alone what it gives in the call.
    GenerationParams segment(size_t i) const;
};

struct GenerationHooks {
    // Raw (unprocessed) logits: talker step s (0 = prefill) and predictor codebook g of frame f.
    std::function<void(int64_t step, const float* logits, int64_t vocab)> talker_logits;
    std::function<void(int64_t frame, int g, const float* logits, int64_t vocab)> predictor_logits;
    // Each finished frame (16 codes) as soon as it exists; return false to stop generation.
    std::function<bool(int64_t frame, const int32_t* codes)> on_frame;
};

struct GenerationStats {
    int64_t prompt_positions = 0;
    // Of those, the positions whose keys and values an earlier request with the same
    // beginning had left (RequestMemoryPool): not run again.
    int64_t reused_positions = 0;
    int64_t frames = 0;
    bool stopped_at_eos = false;
    // Wall time of the steps this request took part in (a step of a batch counts whole for
    // each of its requests); talker_ms excludes prefill.
    double prefill_ms = 0, talker_ms = 0, predictor_ms = 0;

    // Adds a later generation of the same call (a segment of a long text): counts and times
    // sum, stopped_at_eos is the later one's.
    GenerationStats& operator+=(const GenerationStats& later);
};

struct StreamState {
    // Reserves the talker's KV cache for the prompt and the most frames the request may make
    // (an Error naming the sizes when that memory is not available); the caches come from
    // `memory` when given (give them back with release_memory).
    StreamState(const TtsModel& model, Prompt prompt, const GenerationParams& params,
                GenerationHooks hooks = {}, RequestMemoryPool* memory = nullptr);
    // Hands the KV caches and the prompt's rows back to the pool they came from, for the next
    // request (this state is done with them); nothing without a pool.
    void release_memory();

    Prompt prompt;
    GenerationParams params;
    GenerationHooks hooks;
    // Streaming text input: false while more trailing text may still be appended to the
    // prompt; a frame whose text has not arrived yet waits (it is not padded).
    bool text_complete = true;
    bool keep_codes = true;  // collect every frame in `codes`

    int64_t max_tokens = 0;  // codebook-0 tokens this request may draw (context included)
    int64_t prefilled = 0;   // prompt positions run so far
    int64_t drawn = 0;       // codebook-0 tokens drawn so far
    int32_t token = -1;      // codebook 0 of the next frame, once drawn
    bool finished = false;
    std::exception_ptr error;  // why the request ended early, if it failed

    KvCache talker_cache, predictor_cache;
    // Where the caches came from: its copies of voices serve the prompt's first step, and take
    // its voice once it has run (prefill_step). Null without a pool.
    RequestMemoryPool* pool = nullptr;
    Sampler sampler;
    std::vector<float> past_hidden;  // [H] the talker's last hidden state
    std::vector<int32_t> frame;      // [16] the last frame
    std::vector<int32_t> codes;      // [frames, 16] when keep_codes
    std::vector<int32_t> distinct;   // codebook-0 ids drawn so far, for the repetition penalty
    std::vector<uint8_t> seen;
    GenerationStats stats;

    bool prefilling() const { return !finished && prefilled < prompt.length; }
    // Ready for its next frame: prefilled, not finished, and that frame's text is there.
    bool steppable() const {
        return !finished && !prefilling() && (stats.frames < prompt.n_trailing || text_complete);
    }
    // Ends the request with the exception in flight (called inside a catch block).
    void fail();
};

}  // namespace qwen3tts
