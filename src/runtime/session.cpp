#include "runtime/session.hpp"

#include "core/thread_pool.hpp"

namespace qwen3tts {

Session::Session(std::shared_ptr<const TtsModel> model, const SessionOptions& options)
    : model_(std::move(model)),
      pool_(std::make_unique<ThreadPool>(
          resolve_thread_count(options.threads, "threads", options.oversubscribe))) {
    exec_.kernels = options.kernels;
    exec_.pool = pool_.get();
    memory_ = std::make_unique<RequestMemoryPool>(exec_, 1, options.reuse_prompts);
}

Prompt Session::build_prompt(const PromptRequest& request) const {
    const TtsModel& m = *model_;
    return qwen3tts::build_prompt(exec_, m.config(), m.tokenizer(), m.talker(), m.predictor(),
                                  request);
}

std::vector<int32_t> Session::generate(const Prompt& prompt, const GenerationParams& params,
                                       const GenerationHooks& hooks, GenerationStats* stats) {
    StreamState st(*model_, prompt, params, hooks, memory_.get());
    st.codes.reserve(size_t(st.max_tokens) * st.frame.size());
    while (st.prefilling()) prefill_step(exec_, *model_, st, scratch_);
    StreamState* one[1] = {&st};
    while (!st.finished) decode_step(exec_, *model_, one, 1, scratch_);
    st.release_memory();
    if (st.error) std::rethrow_exception(st.error);
    if (stats) *stats = st.stats;
    return std::move(st.codes);
}

}  // namespace qwen3tts
