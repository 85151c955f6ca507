// Many requests at once on one loaded model (continuous batching): a worker thread owns the
// step buffers and threads; at every frame boundary it admits waiting requests (their prompts
// run in chunks between frames, one per frame while others generate), steps every request
// that is ready as one batch (runtime/frame_step.hpp: weights read once per step for all of
// them), feeds each request's codec stream its new frame, and retires the requests that ended
// (end of speech, frame limit, cancel, error). A request's codes and audio equal a solo run's:
// they do not depend on which requests run beside it (docs/batching.md).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "model/codec_decoder.hpp"
#include "model/streaming_prompt.hpp"
#include "runtime/session.hpp"
#include "runtime/speech.hpp"

namespace qwen3tts {

struct FrameSchedulerOptions {
    int max_batch = 8;   // requests generating at once (each holds its KV cache)
    int max_queue = 64;  // requests waiting for a place; one more is an Error (busy)
    SessionOptions session;
};

struct JobResult {
    enum class Status { completed, cancelled, failed };
    Status status = Status::completed;
    std::exception_ptr error;  // when failed
    GenerationStats generation;
    double codec_ms = 0;
    double first_audio_ms = -1;  // from submission (queueing included)
    double total_ms = 0;         // from submission to the end
    int64_t samples = 0;
};

// What to run and where its results go. The callbacks run on the scheduler's thread, between
// steps: they must be quick (hand the data to another thread for slow work).
struct JobSpec {
    Prompt prompt;  // built by the caller (its validation errors are the caller's)
    // Incremental text: `request` describes the voice and options, `request.text` is the text
    // so far; more comes with Job::push_text until Job::finish_text.
    bool incremental_text = false;
    PromptRequest request;
    // A long text's later segments (SynthesisOptions::segment_chars): when a generation ends
    // by itself (end of speech, frame limit), segment i's prompt is built from `request` with
    // its text and generated with params.segment(i), its frames going on in the same codec
    // stream, as the Synthesizer does.
    std::vector<std::string> later_segments;
    // Incremental text in segments of at most this many characters (0: one generation): the
    // text is cut as it arrives (TextSegmenter, the same segments as the whole text's), each
    // segment a streaming prompt of its own, generated as above once the one before has ended.
    size_t incremental_segment_chars = 0;
    std::shared_ptr<const void> keep_alive;   // owner of request.voice and anything it points to
    const VoiceClonePrompt* voice = nullptr;  // for the codec: in-context voices prime it
    GenerationParams params;
    const CodecDecoder* codec = nullptr;  // set: frames are decoded to audio for on_audio
    std::function<bool(int64_t frame, const int32_t* codes)> on_frame;  // false: stop
    AudioCallback on_audio;                                             // false: stop
    std::function<void(const JobResult&)> on_done;                      // exactly once
};

class FrameScheduler;

// The lock and wake-up signal shared by a scheduler and its jobs (a job handle may outlive
// its scheduler: then nobody listens any more, and the job is already done).
struct FrameSchedulerSignal {
    std::mutex mu;
    std::condition_variable cv;
    bool wake = false;
};

// A submitted request. Thread-safe.
class Job {
  public:
    uint64_t id() const { return id_; }
    // Ends the request at the next frame boundary (on_done gets Status::cancelled).
    void cancel();
    // Incremental text only: appends text / cuts it hard where it is now
    // (IncrementalTokenizer::flush; in segments, TextSegmenter::flush: a segment ends there) /
    // marks the text complete.
    void push_text(const std::string& text);
    void flush_text();
    void finish_text();
    // Blocks until on_done has returned; then the result.
    const JobResult& wait();
    bool done() const;

  private:
    friend class FrameScheduler;
    struct Engine;  // what only the scheduler thread touches
    Job(std::shared_ptr<FrameSchedulerSignal> signal, uint64_t id, JobSpec spec);
    void notify();

    std::shared_ptr<FrameSchedulerSignal> signal_;
    const uint64_t id_;
    const bool incremental_;
    JobSpec spec_;
    std::chrono::steady_clock::time_point submitted_;
    // Guarded by signal_->mu: text not yet seen by the worker, cancel request.
    std::string incoming_text_;
    std::vector<size_t> incoming_flushes_;  // offsets in incoming_text_ where a flush goes
    bool text_finished_ = false, cancel_requested_ = false;
    // Completion.
    mutable std::mutex done_mu_;
    std::condition_variable done_cv_;
    bool done_ = false;
    JobResult result_;
    std::unique_ptr<Engine> engine_;
};

class FrameScheduler {
  public:
    FrameScheduler(std::shared_ptr<const TtsModel> model,
                   const FrameSchedulerOptions& options = {});
    // Cancels every request not done yet (their on_done runs) and stops the worker.
    ~FrameScheduler();
    FrameScheduler(const FrameScheduler&) = delete;
    FrameScheduler& operator=(const FrameScheduler&) = delete;

    const TtsModel& model() const { return *model_; }
    // A context on the caller's thread for building prompts outside the worker.
    backend::ExecContext caller_context() const;

    // Queues a request; Error(busy) when max_queue requests are already waiting.
    std::shared_ptr<Job> submit(JobSpec spec);

    struct Load {
        int64_t active = 0, queued = 0;
        int64_t frames = 0;  // frames generated since the start
    };
    Load load() const;

  private:
    void run();
    bool has_work_locked() const;
    void admit_locked();
    void start(Job& job);
    std::unique_ptr<StreamingPrompt> text_prompt(const PromptRequest& request) const;
    static void take_text(Job::Engine& e);
    void begin_generation(Job& job, Prompt prompt, const GenerationParams& params);
    bool start_next_segment(Job& job);
    void step_all(const std::vector<std::shared_ptr<Job>>& jobs);
    void decode_due_packets(const std::vector<std::shared_ptr<Job>>& jobs);
    void decode_packets(const std::vector<FrameAudio*>& due,
                        const std::vector<Job::Engine*>& owners);
    void finish(Job& job, JobResult::Status status, std::exception_ptr error = nullptr);

    std::shared_ptr<const TtsModel> model_;
    FrameSchedulerOptions options_;
    std::unique_ptr<ThreadPool> pool_;
    backend::ExecContext exec_;
    StepScratch scratch_;
    std::unique_ptr<RequestMemoryPool> memory_;  // worker thread only
    // Worker thread only: steps taken (the codec batches' clock), a codec batch waiting.
    int64_t codec_steps_ = 0;
    bool codec_batch_due_ = false;

    std::shared_ptr<FrameSchedulerSignal> signal_;  // its mutex guards the members below
    std::deque<std::shared_ptr<Job>> queue_;
    std::vector<std::shared_ptr<Job>> active_;
    bool stopping_ = false;
    uint64_t next_id_ = 1;
    int64_t frames_ = 0;
    std::thread worker_;
};

}  // namespace qwen3tts
