// Per-request state and the frame loop: a Session owns the KV caches, scratch buffers, RNG and
// thread pool for one stream of requests against a shared, immutable TtsModel. It reserves
// its buffers when a generation starts, so the frame loop itself never allocates.
// Thread-safety: one generate() at a time per Session; use one Session per concurrent request.
// Sessions borrow the process-wide worker threads (see core/thread_pool.hpp).
#pragma once

#include <functional>
#include <memory>

#include "backend/ops.hpp"
#include "model/prompt.hpp"
#include "model/tts_model.hpp"
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
};

struct SessionOptions {
    int threads = 0;  // 0 = all online CPUs; see resolve_thread_count
    backend::KernelSet kernels = backend::KernelSet::fast;
    bool oversubscribe = false;  // allow more threads than online CPUs
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
    int64_t frames = 0;
    bool stopped_at_eos = false;
    double prefill_ms = 0, talker_ms = 0, predictor_ms = 0;  // talker_ms excludes prefill
};

class Session {
  public:
    Session(std::shared_ptr<const TtsModel> model, const SessionOptions& options = {});

    const TtsModel& model() const { return *model_; }
    const backend::ExecContext& exec() const { return exec_; }
    ThreadPool* pool() const { return pool_.get(); }

    Prompt build_prompt(const PromptRequest& request) const;

    // Generates frames for a prompt; returns codes [frames, 16] row-major.
    std::vector<int32_t> generate(const Prompt& prompt, const GenerationParams& params,
                                  const GenerationHooks& hooks = {},
                                  GenerationStats* stats = nullptr);

  private:
    std::shared_ptr<const TtsModel> model_;
    std::unique_ptr<ThreadPool> pool_;
    backend::ExecContext exec_;
    Sampler sampler_;
    KvCache talker_cache_;
    DecoderScratch talker_scratch_;
    CodePredictor::State predictor_state_;
};

}  // namespace qwen3tts
