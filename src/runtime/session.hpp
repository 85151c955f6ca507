// One request at a time against a shared, immutable TtsModel: the batch-of-one case of the
// step-wise runtime (runtime/frame_step.hpp), with its own worker threads and step buffers.
// Thread-safety: one generate() at a time per Session; use one Session per concurrent request,
// or the Scheduler (runtime/frame_scheduler.hpp) to run many requests in one batch.
// Sessions borrow the process-wide worker threads (see core/thread_pool.hpp).
#pragma once

#include <memory>

#include "backend/ops.hpp"
#include "model/prompt.hpp"
#include "model/tts_model.hpp"
#include "runtime/codec_overlap.hpp"
#include "runtime/frame_step.hpp"
#include "runtime/stream_state.hpp"

namespace qwen3tts {

struct SessionOptions {
    int threads = 0;  // 0 = all online CPUs; see resolve_thread_count
    backend::KernelSet kernels = backend::KernelSet::fast;
    bool oversubscribe = false;  // allow more threads than online CPUs
    // Start a prompt that begins like an earlier request's from that one's keys and values
    // (RequestMemoryPool); the output is the same either way.
    bool reuse_prompts = true;
};

class Session {
  public:
    Session(std::shared_ptr<const TtsModel> model, const SessionOptions& options = {});

    const TtsModel& model() const { return *model_; }
    const backend::ExecContext& exec() const { return exec_; }
    ThreadPool* pool() const { return pool_.get(); }
    // Later steps on the calling thread alone (true) or on all the session's threads (false);
    // may be called from a hook of generate(). The frames do not depend on it.
    void set_single_threaded(bool one) { exec_.pool = one ? nullptr : pool_.get(); }
    // The last request's KV caches and codec stream, kept for the next one.
    RequestMemoryPool& memory() { return *memory_; }
    // Which way its requests' codec packets are decoded under CodecOverlap::adaptive.
    OverlapChoice& overlap_choice() { return overlap_choice_; }

    Prompt build_prompt(const PromptRequest& request) const;

    // Generates frames for a prompt; returns codes [frames, 16] row-major. Errors of the
    // request (non-finite logits, a throwing hook) are rethrown.
    std::vector<int32_t> generate(const Prompt& prompt, const GenerationParams& params,
                                  const GenerationHooks& hooks = {},
                                  GenerationStats* stats = nullptr);

  private:
    std::shared_ptr<const TtsModel> model_;
    std::unique_ptr<ThreadPool> pool_;
    backend::ExecContext exec_;
    StepScratch scratch_;
    std::unique_ptr<RequestMemoryPool> memory_;
    OverlapChoice overlap_choice_;
};

}  // namespace qwen3tts
