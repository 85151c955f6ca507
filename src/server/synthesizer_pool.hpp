// The SpeechService of one request per Synthesizer: `slots` Synthesizers, each on its own
// thread, take jobs in arrival order from a queue of at most `max_queue` waiting jobs.
// Requests do not share a forward pass (no batching); that is the scheduler's job.
#pragma once

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "server/speech_service.hpp"

namespace qwen3tts::server {

class SynthesizerPool : public SpeechService {
  public:
    SynthesizerPool(const Model& model, const EngineOptions& engine, size_t slots,
                    size_t max_queue);
    ~SynthesizerPool() override;

    std::shared_ptr<SpeechTicket> submit(SpeechJob job, AudioFn on_audio, DoneFn on_done) override;
    SpeechServiceStats stats() const override;
    void shutdown(std::chrono::milliseconds grace) override;

  private:
    struct Entry;
    void work(Synthesizer synth);
    void drop_queued(const Entry* e);

    mutable std::mutex mutex_;
    std::condition_variable cv_;       // workers: a job or the stop
    std::condition_variable idle_cv_;  // shutdown: everything finished
    std::deque<std::shared_ptr<Entry>> queue_;
    std::vector<std::shared_ptr<Entry>> running_;
    size_t slots_, max_queue_;
    bool closed_ = false;
    std::vector<std::thread> threads_;
};

}  // namespace qwen3tts::server
