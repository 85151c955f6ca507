#include "runtime/stream_state.hpp"

#include <string>

#include "core/error.hpp"

namespace qwen3tts {

GenerationParams GenerationParams::defaults(const GenerationDefaults& d) {
    GenerationParams p;
    p.talker = {d.do_sample, d.temperature, d.top_k, d.top_p, d.repetition_penalty};
    p.predictor = {d.subtalker_do_sample, d.subtalker_temperature, d.subtalker_top_k,
                   d.subtalker_top_p, 1.0f};
    p.max_new_tokens = d.max_new_tokens;
    return p;
}

void GenerationParams::validate() const {
    talker.validate("talker sampling");
    predictor.validate("code predictor sampling");
    if (max_new_tokens < 2)
        throw Error(ErrorCode::invalid_argument,
                    "max frames must be at least 1 (max_new_tokens >= 2), got max_new_tokens = " +
                        std::to_string(max_new_tokens));
}

GenerationParams GenerationParams::segment(size_t i) const {
    GenerationParams p = *this;
    p.seed = seed + i;
    return p;
}

GenerationStats& GenerationStats::operator+=(const GenerationStats& later) {
    prompt_positions += later.prompt_positions;
    frames += later.frames;
    stopped_at_eos = later.stopped_at_eos;
    reused_positions += later.reused_positions;
    prefill_ms += later.prefill_ms;
    talker_ms += later.talker_ms;
    predictor_ms += later.predictor_ms;
    return *this;
}

StreamState::StreamState(const TtsModel& model, Prompt prompt_, const GenerationParams& params_,
                         GenerationHooks hooks_, RequestMemoryPool* memory)
    : prompt(std::move(prompt_)), params(params_), hooks(std::move(hooks_)), sampler(params.seed) {
    params.validate();
    const TalkerConfig& tc = model.config().talker;
    QWEN3TTS_ASSERT(prompt.hidden == model.talker().hidden_size());
    // Generation stops at the end of the model's context like at the frame limit.
    max_tokens =
        std::min<int64_t>(params.max_new_tokens, tc.max_position_embeddings - prompt.length);
    QWEN3TTS_ASSERT(max_tokens >= 1);  // build_prompt rejects prompts that fill the context
    try {
        const DecoderStack& stack = model.talker().stack();
        const int64_t capacity = prompt.length + max_tokens;
        if (memory) {
            pool = memory;
            TakenCache taken = memory->take_cache(stack, capacity, &prompt);
            talker_cache = std::move(taken.cache);
            prefilled = stats.reused_positions = taken.reused_positions;
        } else {
            talker_cache = stack.make_cache(capacity);
        }
    } catch (const Error& e) {
        throw Error(e.code(), std::string("talker: ") + e.what() + " (prompt of " +
                                  std::to_string(prompt.length) + " positions + at most " +
                                  std::to_string(max_tokens) + " generated)");
    }
    predictor_cache =
        memory
            ? memory->take_cache(model.predictor().stack(), model.predictor().n_codebooks()).cache
            : model.predictor().make_cache();
    past_hidden.resize(size_t(prompt.hidden));
    frame.resize(size_t(model.predictor().n_codebooks()));
    seen.assign(size_t(tc.vocab_size), 0);
    stats.prompt_positions = prompt.length;
}

void StreamState::release_memory() {
    if (!pool) return;
    // The keys and values of the prompt positions run so far, for a later prompt that begins
    // the same way (RequestMemoryPool). This state is done with its prompt.
    prompt.embeds.resize(size_t(std::min(prefilled, prompt.length) * prompt.hidden));
    pool->keep_cache(std::move(talker_cache), std::move(prompt.embeds), prompt.hidden);
    pool->keep_cache(std::move(predictor_cache));
}

void StreamState::fail() {
    error = std::current_exception();
    finished = true;
}

}  // namespace qwen3tts
