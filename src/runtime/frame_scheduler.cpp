#include "runtime/frame_scheduler.hpp"

#include <algorithm>
#include <string>
#include <string_view>

#include "core/error.hpp"
#include "core/log.hpp"
#include "core/thread_pool.hpp"
#include "text/text_segments.hpp"

namespace qwen3tts {

namespace {

double ms_between(std::chrono::steady_clock::time_point a,
                  std::chrono::steady_clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
}

}  // namespace

struct Job::Engine {
    std::unique_ptr<StreamState> state;
    std::unique_ptr<FrameAudio> audio;
    std::unique_ptr<StreamingPrompt> text;    // incremental text: its prompt, built as it comes
    std::unique_ptr<TextSegmenter> segments;  // incremental text in segments: the cutting
    std::string new_text;                     // received, not yet pushed to `text`
    std::vector<size_t> new_flushes;          // offsets in new_text of flushes
    bool text_finished = false;
    bool cancel = false;
    bool stopped = false;     // a callback asked to stop
    bool retired = false;     // on_done has run
    size_t segment = 0;       // of a long text: the one generating
    GenerationStats earlier;  // the segments before it
};

Job::Job(std::shared_ptr<FrameSchedulerSignal> signal, uint64_t id, JobSpec spec)
    : signal_(std::move(signal)),
      id_(id),
      incremental_(spec.incremental_text),
      spec_(std::move(spec)),
      submitted_(std::chrono::steady_clock::now()),
      engine_(std::make_unique<Engine>()) {}

void Job::notify() {
    signal_->wake = true;
    signal_->cv.notify_all();
}

void Job::cancel() {
    const std::lock_guard<std::mutex> lk(signal_->mu);
    cancel_requested_ = true;
    notify();
}

void Job::push_text(const std::string& text) {
    if (!incremental_)
        throw Error(ErrorCode::invalid_argument,
                    "push_text: this request was not submitted with incremental text");
    const std::lock_guard<std::mutex> lk(signal_->mu);
    if (text_finished_)
        throw Error(ErrorCode::invalid_argument, "push_text: the text was already finished");
    incoming_text_ += text;
    notify();
}

void Job::flush_text() {
    if (!incremental_)
        throw Error(ErrorCode::invalid_argument,
                    "flush_text: this request was not submitted with incremental text");
    const std::lock_guard<std::mutex> lk(signal_->mu);
    if (text_finished_)
        throw Error(ErrorCode::invalid_argument, "flush_text: the text was already finished");
    incoming_flushes_.push_back(incoming_text_.size());
    notify();
}

void Job::finish_text() {
    if (!incremental_)
        throw Error(ErrorCode::invalid_argument,
                    "finish_text: this request was not submitted with incremental text");
    const std::lock_guard<std::mutex> lk(signal_->mu);
    text_finished_ = true;
    notify();
}

const JobResult& Job::wait() {
    std::unique_lock<std::mutex> lk(done_mu_);
    done_cv_.wait(lk, [&] { return done_; });
    return result_;
}

bool Job::done() const {
    const std::lock_guard<std::mutex> lk(done_mu_);
    return done_;
}

FrameScheduler::FrameScheduler(std::shared_ptr<const TtsModel> model,
                               const FrameSchedulerOptions& options)
    : model_(std::move(model)),
      options_(options),
      signal_(std::make_shared<FrameSchedulerSignal>()) {
    if (options.max_batch < 1)
        throw Error(ErrorCode::invalid_argument,
                    "max batch must be at least 1, got " + std::to_string(options.max_batch));
    if (options.max_queue < 0)
        throw Error(ErrorCode::invalid_argument,
                    "max queue must not be negative, got " + std::to_string(options.max_queue));
    pool_ = std::make_unique<ThreadPool>(
        resolve_thread_count(options.session.threads, "threads", options.session.oversubscribe));
    exec_.kernels = options.session.kernels;
    exec_.pool = pool_.get();
    scratch_.reserve(*model_, options.max_batch);
    memory_ = std::make_unique<RequestMemoryPool>(exec_, options.max_batch,
                                                  options.session.reuse_prompts);
    worker_ = std::thread([this] { run(); });
}

FrameScheduler::~FrameScheduler() {
    {
        const std::lock_guard<std::mutex> lk(signal_->mu);
        stopping_ = true;
        signal_->cv.notify_all();
    }
    worker_.join();
    for (auto& job : active_)
        if (!job->engine_->retired) finish(*job, JobResult::Status::cancelled);
    for (auto& job : queue_) finish(*job, JobResult::Status::cancelled);
}

backend::ExecContext FrameScheduler::caller_context() const {
    backend::ExecContext ctx;
    ctx.kernels = exec_.kernels;
    return ctx;
}

std::shared_ptr<Job> FrameScheduler::submit(JobSpec spec) {
    spec.params.validate();
    const std::lock_guard<std::mutex> lk(signal_->mu);
    const int64_t free_places = options_.max_batch - int64_t(active_.size());
    if (int64_t(queue_.size()) >= options_.max_queue + std::max<int64_t>(0, free_places))
        throw Error(ErrorCode::busy, "the request queue is full (" + std::to_string(queue_.size()) +
                                         " waiting, max queue " +
                                         std::to_string(options_.max_queue) + ", " +
                                         std::to_string(active_.size()) + " generating)");
    auto job = std::shared_ptr<Job>(new Job(signal_, next_id_++, std::move(spec)));
    queue_.push_back(job);
    signal_->wake = true;
    signal_->cv.notify_all();
    return job;
}

FrameScheduler::Load FrameScheduler::load() const {
    const std::lock_guard<std::mutex> lk(signal_->mu);
    return {int64_t(active_.size()), int64_t(queue_.size()), frames_};
}

// Under the lock, by the worker: whether a loop iteration would do anything.
bool FrameScheduler::has_work_locked() const {
    if (!queue_.empty() && int64_t(active_.size()) < options_.max_batch) return true;
    for (const auto& job : queue_)
        if (job->cancel_requested_) return true;
    for (const auto& job : active_) {
        const Job::Engine& e = *job->engine_;
        if (job->cancel_requested_ || !job->incoming_text_.empty() ||
            !job->incoming_flushes_.empty())
            return true;
        if (!e.state) {
            if (!job->spec_.incremental_text || job->text_finished_) return true;
        } else if (e.state->finished || e.state->prefilling() || e.state->steppable() ||
                   (job->text_finished_ && !e.state->text_complete)) {
            return true;
        }
    }
    return false;
}

void FrameScheduler::admit_locked() {
    while (!queue_.empty() && int64_t(active_.size()) < options_.max_batch) {
        active_.push_back(std::move(queue_.front()));
        queue_.pop_front();
    }
    for (auto& job : active_) {
        Job::Engine& e = *job->engine_;
        for (size_t at : job->incoming_flushes_) e.new_flushes.push_back(e.new_text.size() + at);
        job->incoming_flushes_.clear();
        e.new_text += job->incoming_text_;
        job->incoming_text_.clear();
        e.text_finished = job->text_finished_;
        e.cancel = job->cancel_requested_;
    }
}

// Makes the job's generation state once its prompt can be built, and hands an incremental
// job the trailing text committed since the last step.
void FrameScheduler::start(Job& job) {
    Job::Engine& e = *job.engine_;
    JobSpec& spec = job.spec_;
    if (spec.incremental_text) {
        if (!e.text) {
            if (spec.incremental_segment_chars > 0) {  // the text so far goes to the cutting
                e.segments = std::make_unique<TextSegmenter>(spec.incremental_segment_chars);
                e.segments->push(spec.request.text);
                spec.request.text.clear();
            }
            e.text = text_prompt(spec.request);
        }
        take_text(e);
        if (!e.state) {
            if (!e.text->ready_for_prefill()) return;
            spec.prompt = e.text->take_prefill();
        }
    }
    if (!e.state) {
        begin_generation(job, std::move(spec.prompt),
                         e.segments ? spec.params.segment(e.segment) : spec.params);
        if (spec.codec && !e.audio)
            e.audio =
                std::make_unique<FrameAudio>(*spec.codec, *memory_, spec.voice, spec.on_audio);
    }
    if (e.text && !e.state->text_complete) {
        Prompt& p = e.state->prompt;
        for (int64_t n = e.text->trailing_available(); n > 0; --n) {
            p.trailing.resize(size_t((p.n_trailing + 1) * p.hidden));
            const bool row = e.text->next_trailing(p.trailing.data() + p.n_trailing * p.hidden);
            QWEN3TTS_ASSERT(row);
            ++p.n_trailing;
        }
        e.state->text_complete = e.text->text_finished();
    }
}

// The streaming prompt of incremental text (of its current segment, in segments).
std::unique_ptr<StreamingPrompt> FrameScheduler::text_prompt(const PromptRequest& request) const {
    return std::make_unique<StreamingPrompt>(exec_, model_->config(), model_->tokenizer(),
                                             model_->talker(), model_->predictor(), request);
}

// Hands the text received since the last step to the job's streaming prompt: all of it, or in
// segments what the cutting gives the current segment (its end finishes the prompt's text).
void FrameScheduler::take_text(Job::Engine& e) {
    auto each_part = [&](auto&& push, auto&& flush) {
        size_t pushed = 0;
        for (size_t at : e.new_flushes) {
            push(std::string_view(e.new_text).substr(pushed, at - pushed));
            flush();
            pushed = at;
        }
        if (pushed < e.new_text.size()) push(std::string_view(e.new_text).substr(pushed));
        e.new_text.clear();
        e.new_flushes.clear();
    };
    if (!e.segments) {
        each_part([&](std::string_view t) { e.text->push_text(t); }, [&] { e.text->flush_text(); });
        if (e.text_finished && !e.text->text_finished()) e.text->finish_text();
        return;
    }
    TextSegmenter& cut = *e.segments;
    each_part([&](std::string_view t) { cut.push(t); }, [&] { cut.flush(); });
    if (e.text_finished) cut.finish();
    if (e.text->text_finished()) return;
    e.text->push_text(cut.take(e.segment));
    // A text of whitespace only has no segment: the prompt says what is wrong with it.
    if (cut.closed(e.segment) || (cut.finished() && cut.segments() == 0)) e.text->finish_text();
}

// The generation state of the job's prompt (of its current segment, for a long text).
void FrameScheduler::begin_generation(Job& job, Prompt prompt, const GenerationParams& params) {
    GenerationHooks hooks;
    hooks.on_frame = [&job](int64_t f, const int32_t* codes) {
        Job::Engine& en = *job.engine_;
        if (job.spec_.on_frame && !job.spec_.on_frame(en.earlier.frames + f, codes)) {
            en.stopped = true;
            return false;
        }
        // The packet is decoded after the step, together with the other requests' ones.
        if (en.audio) en.audio->push_frame(codes);
        return !en.audio || en.audio->keep_going();
    };
    Job::Engine& e = *job.engine_;
    e.state = std::make_unique<StreamState>(*model_, std::move(prompt), params, std::move(hooks),
                                            memory_.get());
    e.state->keep_codes = false;
    e.state->text_complete = !job.spec_.incremental_text;
}

// After a segment's generation ended by itself, the next segment's: its prompt is built here
// (a few ms: the text's embeddings), run in chunks from the next iteration on, and its frames
// follow the earlier ones in the job's codec stream. False when the job is done instead (no
// segment left, or it ended by error or a callback's stop; a cancel is seen before).
bool FrameScheduler::start_next_segment(Job& job) {
    Job::Engine& e = *job.engine_;
    JobSpec& spec = job.spec_;
    if (e.state->error || e.stopped || (e.audio && !e.audio->keep_going())) return false;
    if (e.segments) {
        // Incremental text: the next segment's prompt is made as its text comes (start()).
        if (e.segments->finished() && e.segment + 1 >= e.segments->segments()) return false;
        const GenerationStats ended = e.state->stats;
        e.state->release_memory();
        e.state.reset();
        e.earlier += ended;
        ++e.segment;
        e.text = text_prompt(spec.request);
        start(job);
        return true;
    }
    if (e.segment >= spec.later_segments.size()) return false;
    spec.request.text = std::move(spec.later_segments[e.segment]);
    Prompt prompt = build_prompt(exec_, model_->config(), model_->tokenizer(), model_->talker(),
                                 model_->predictor(), spec.request);
    // Its caches go to the next segment. Should that one's state not be made (no memory), the
    // ended state stays, without caches, to carry the error and the stats.
    const GenerationStats ended = e.state->stats;
    e.state->release_memory();
    begin_generation(job, std::move(prompt), spec.params.segment(e.segment + 1));
    e.earlier += ended;
    ++e.segment;
    return true;
}

void FrameScheduler::finish(Job& job, JobResult::Status status, std::exception_ptr error) {
    JobResult r;
    Job::Engine& e = *job.engine_;
    r.generation = e.earlier;
    if (e.state) {
        r.generation += e.state->stats;
        if (!error && e.state->error) error = e.state->error;
    }
    if (error) status = JobResult::Status::failed;
    r.status = status;
    r.error = error;
    if (e.audio) {
        r.codec_ms = e.audio->codec_ms();
        r.samples = e.audio->samples();
        if (r.samples > 0) r.first_audio_ms = ms_between(job.submitted_, e.audio->first_audio());
    }
    r.total_ms = ms_between(job.submitted_, std::chrono::steady_clock::now());
    // The KV caches and the codec stream go to the next requests.
    if (e.state) e.state->release_memory();
    if (e.audio) e.audio->release_memory(*memory_);
    e.state.reset();
    e.audio.reset();
    e.text.reset();
    e.retired = true;
    job.result_ = std::move(r);
    if (job.spec_.on_done) {
        try {
            job.spec_.on_done(job.result_);
        } catch (const std::exception& ex) {
            log_warning(std::string("request ") + std::to_string(job.id()) +
                        ": on_done threw: " + ex.what());
        }
    }
    job.spec_ = JobSpec();  // callbacks and their captures are released
    {
        const std::lock_guard<std::mutex> lk(job.done_mu_);
        job.done_ = true;
    }
    job.done_cv_.notify_all();
}

// One iteration over the active jobs: start, prompt chunks, one frame for all that are ready,
// retire the finished. While some jobs are generating, one prompt chunk per iteration, the
// first admitted job's: they wait for one chunk per frame however many join at once, and of
// those joining the first to come is the first to speak. While none is, every joining job's
// chunk, side by side (nobody waits for them, and they start together).
void FrameScheduler::step_all(const std::vector<std::shared_ptr<Job>>& jobs) {
    std::vector<StreamState*> ready;
    const bool generating = std::any_of(jobs.begin(), jobs.end(), [](const auto& job) {
        const Job::Engine& e = *job->engine_;
        return !e.cancel && !e.retired && e.state && e.state->steppable();
    });
    bool prefilled = false;
    for (const auto& job : jobs) {
        Job::Engine& e = *job->engine_;
        if (e.cancel || e.retired) continue;
        try {
            start(*job);
            if (e.state && e.state->prefilling() && !(generating && prefilled)) {
                prefill_step(exec_, *model_, *e.state, scratch_);
                prefilled = true;
            }
        } catch (...) {
            if (e.state)
                e.state->fail();
            else
                finish(*job, JobResult::Status::failed, std::current_exception());
        }
    }
    for (const auto& job : jobs) {
        Job::Engine& e = *job->engine_;
        if (!e.cancel && !e.retired && e.state && e.state->steppable())
            ready.push_back(e.state.get());
    }
    // The codec packets go out before the talker step, which they do not need.
    try {
        decode_step(exec_, *model_, ready.data(), int64_t(ready.size()), scratch_,
                    [&] { decode_due_packets(jobs); });
    } catch (...) {
        // Not one request's error (those end their request inside the step): the step's
        // requests end with it, the scheduler goes on.
        for (StreamState* st : ready)
            if (!st->finished) st->fail();
    }
    const std::lock_guard<std::mutex> lk(signal_->mu);
    frames_ += int64_t(ready.size());
}

// The codec packets due after this step, decoded in batches (each codec layer's weights read
// once for all requests; a request's audio is the same as decoded alone, for any packet sizes).
// Requests start at different steps, so their packets would fall due at different steps, a
// few requests per batch: instead all requests' held frames are decoded together every
// kPacketFrames steps (packets of 1-8 frames). That step is long, so while a request is
// joining (prefilling) the batch waits, up to kMaxPendingFrames held frames: the joining
// request's first audio does not wait for it. First frames are decoded at once, in a batch of
// their own ahead of the others.
void FrameScheduler::decode_due_packets(const std::vector<std::shared_ptr<Job>>& jobs) {
    if (++codec_steps_ % FrameAudio::kPacketFrames == 0) codec_batch_due_ = true;
    bool joining = false, full = false;
    for (const auto& job : jobs) {
        const Job::Engine& e = *job->engine_;
        if (e.retired || !e.state || e.state->error) continue;
        joining = joining || e.state->prefilling();
        // One more step would overflow what it may hold.
        full = full || (e.audio && e.audio->pending_frames() == FrameAudio::kMaxPendingFrames);
    }
    const bool batch_now = full || (codec_batch_due_ && !joining);
    if (batch_now) codec_batch_due_ = false;
    for (const bool first : {true, false}) {
        std::vector<FrameAudio*> due;
        std::vector<Job::Engine*> owners;
        for (const auto& job : jobs) {
            Job::Engine& e = *job->engine_;
            if (e.retired || !e.audio || !e.state || e.state->error) continue;
            if (e.audio->audio_started() == first || e.audio->pending_frames() == 0) continue;
            if (!first && !batch_now) continue;
            due.push_back(e.audio.get());
            owners.push_back(&e);
        }
        decode_packets(due, owners);
    }
}

void FrameScheduler::decode_packets(const std::vector<FrameAudio*>& due,
                                    const std::vector<Job::Engine*>& owners) {
    if (due.empty()) return;
    std::vector<std::exception_ptr> errors(due.size());
    try {
        FrameAudio::flush_batch(due.data(), int(due.size()), errors.data());
    } catch (...) {
        // Bad codes, found before anything was decoded: each request decodes alone, and only
        // those that throw fail.
        for (size_t i = 0; i < due.size(); ++i) {
            try {
                due[i]->flush();
            } catch (...) {
                errors[i] = std::current_exception();
            }
        }
    }
    for (size_t i = 0; i < due.size(); ++i) {
        if (errors[i]) owners[i]->state->error = errors[i];
        if (errors[i] || !due[i]->keep_going()) owners[i]->state->finished = true;
    }
}

void FrameScheduler::run() {
    for (;;) {
        std::vector<std::shared_ptr<Job>> jobs, dropped;
        {
            std::unique_lock<std::mutex> lk(signal_->mu);
            signal_->cv.wait(lk, [&] { return stopping_ || signal_->wake || has_work_locked(); });
            signal_->wake = false;
            if (stopping_) return;
            for (auto it = queue_.begin(); it != queue_.end();) {
                if ((*it)->cancel_requested_) {
                    dropped.push_back(std::move(*it));
                    it = queue_.erase(it);
                } else {
                    ++it;
                }
            }
            admit_locked();
            jobs = active_;
        }
        for (const auto& job : dropped) finish(*job, JobResult::Status::cancelled);
        step_all(jobs);
        std::vector<std::shared_ptr<Job>> ended;
        for (const auto& job : jobs) {
            Job::Engine& e = *job->engine_;
            if (e.retired) {
                ended.push_back(job);
            } else if (e.cancel) {
                finish(*job, JobResult::Status::cancelled);
                ended.push_back(job);
            } else if (e.state && e.state->finished) {
                try {
                    if (start_next_segment(*job)) continue;
                } catch (...) {
                    if (!e.state) {  // between the segments of incremental text
                        finish(*job, JobResult::Status::failed, std::current_exception());
                        ended.push_back(job);
                        continue;
                    }
                    e.state->fail();
                }
                if (e.audio && !e.state->error) {
                    try {
                        e.audio->flush();
                    } catch (...) {
                        e.state->fail();
                    }
                }
                finish(*job, JobResult::Status::completed);
                ended.push_back(job);
            } else if (!e.state && e.segments && e.segments->finished() &&
                       e.segment >= e.segments->segments()) {
                // Incremental text in segments: the text ended with no segment after the one
                // that was spoken last.
                try {
                    if (e.audio) e.audio->flush();
                    finish(*job, JobResult::Status::completed);
                } catch (...) {
                    finish(*job, JobResult::Status::failed, std::current_exception());
                }
                ended.push_back(job);
            } else if (e.audio &&
                       (e.state ? !e.state->error && !e.state->prefilling() && !e.state->steppable()
                                : e.segment > 0)) {
                // Waiting for text: the frames held for the next codec packet are decoded now
                // (the codec stream is exact for any packet sizes), so that a writer who
                // pauses hears everything its text gave so far.
                try {
                    e.audio->flush();
                } catch (...) {
                    e.state->fail();
                }
            }
        }
        if (!ended.empty()) {
            const std::lock_guard<std::mutex> lk(signal_->mu);
            active_.erase(std::remove_if(active_.begin(), active_.end(),
                                         [&](const std::shared_ptr<Job>& j) {
                                             return std::find(ended.begin(), ended.end(), j) !=
                                                    ended.end();
                                         }),
                          active_.end());
        }
    }
}

}  // namespace qwen3tts
