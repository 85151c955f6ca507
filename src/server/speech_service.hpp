// What the HTTP side needs from the synthesis side: submit a request, receive its audio as it
// is made, cancel it. SchedulerService (scheduler_service.hpp) implements it on the
// continuous-batching Scheduler.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "qwen3tts/qwen3tts.hpp"

namespace qwen3tts::server {

struct SpeechJob {
    std::string text;
    SynthesisOptions options;
};

struct SpeechOutcome {
    enum class Status { done, cancelled, failed };
    Status status = Status::done;
    std::string error;                           // failed: the message
    ErrorCode error_code = ErrorCode::internal;  // failed: Error::code(), internal otherwise
    SpeechReport report;                         // done: timings, frames, samples
};

// A submitted job; cancel() stops it within one frame, or drops it from the queue (then on_done
// runs inside cancel(), on the cancelling thread). on_done runs with Status::cancelled.
class SpeechTicket {
  public:
    virtual ~SpeechTicket() = default;
    virtual void cancel() = 0;
};

// A job whose text arrives in pieces (the WebSocket endpoint): its audio equals that of the
// whole text in text_layout "streaming", however it was cut. Errors of the text (invalid
// UTF-8, none at all) end the job (on_done: failed).
class TextStreamTicket : public SpeechTicket {
  public:
    virtual void push_text(const std::string& text) = 0;
    virtual void flush_text() = 0;   // SpeechRequest::flush_text
    virtual void finish_text() = 0;  // once; no push_text after it
};

struct SpeechServiceStats {
    size_t queued = 0;     // waiting for a slot
    size_t active = 0;     // being synthesized
    size_t slots = 0;      // how many run at once
    size_t max_queue = 0;  // queued beyond this are refused
};

class SpeechService {
  public:
    using AudioFn = std::function<void(const float* samples, size_t n)>;
    using DoneFn = std::function<void(const SpeechOutcome& outcome)>;

    virtual ~SpeechService() = default;
    // Queues the job, or returns nullptr when the queue is full (the caller answers 429).
    // on_audio receives the 24 kHz samples in order, then on_done runs exactly once; both on
    // a service thread, never inside submit().
    virtual std::shared_ptr<SpeechTicket> submit(SpeechJob job, AudioFn on_audio,
                                                 DoneFn on_done) = 0;
    // Like submit, but job.text is only the beginning: the rest comes through the ticket.
    virtual std::shared_ptr<TextStreamTicket> submit_text_stream(SpeechJob job, AudioFn on_audio,
                                                                 DoneFn on_done) = 0;
    virtual SpeechServiceStats stats() const = 0;
    // Refuses new jobs, lets running and queued ones finish for up to `grace`, cancels the
    // rest, and returns when every on_done has run.
    virtual void shutdown(std::chrono::milliseconds grace) = 0;
};

}  // namespace qwen3tts::server
