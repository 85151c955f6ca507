// The SpeechService of the many-streams Scheduler: every request joins one continuous batch
// (weights read once per step for all of them), and each request's audio is the one it would
// get alone (docs/batching.md).
#pragma once

#include <condition_variable>
#include <mutex>

#include "server/speech_service.hpp"

namespace qwen3tts::server {

class SchedulerService : public SpeechService {
  public:
    SchedulerService(const Model& model, const SchedulerOptions& options);
    ~SchedulerService() override;

    // Options the model rejects (unknown speaker, ...) are an Error thrown here, before
    // anything runs (the caller answers 400).
    std::shared_ptr<SpeechTicket> submit(SpeechJob job, AudioFn on_audio, DoneFn on_done) override;
    std::shared_ptr<TextStreamTicket> submit_text_stream(SpeechJob job, AudioFn on_audio,
                                                         DoneFn on_done) override;
    SpeechServiceStats stats() const override;
    void shutdown(std::chrono::milliseconds grace) override;

  private:
    struct Ticket;
    std::shared_ptr<Ticket> submit_job(SpeechJob job, AudioFn on_audio, DoneFn on_done,
                                       bool text_stream);
    void ended();

    SchedulerOptions options_;
    mutable std::mutex mutex_;
    std::condition_variable idle_cv_;
    std::vector<std::weak_ptr<Ticket>> tickets_;  // submitted, on_done not run yet
    size_t in_flight_ = 0;
    bool closed_ = false;
    // Last, so destroyed first: its destructor joins the thread that runs on_done, which may
    // still be inside ended() (notifying idle_cv_) when shutdown() has seen in_flight_ reach 0.
    Scheduler scheduler_;
};

}  // namespace qwen3tts::server
