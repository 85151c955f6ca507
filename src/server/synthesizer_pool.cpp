#include "server/synthesizer_pool.hpp"

#include <algorithm>
#include <atomic>

namespace qwen3tts::server {

struct SynthesizerPool::Entry : SpeechTicket {
    SynthesizerPool* pool = nullptr;
    SpeechJob job;
    AudioFn on_audio;
    DoneFn on_done;
    std::atomic<bool> cancelled{false};
    void cancel() override {
        cancelled = true;
        pool->drop_queued(this);
    }
};

SynthesizerPool::SynthesizerPool(const Model& model, const EngineOptions& engine, size_t slots,
                                 size_t max_queue)
    : slots_(std::max<size_t>(slots, 1)), max_queue_(max_queue) {
    std::vector<Synthesizer> synths;
    for (size_t i = 0; i < slots_; ++i) synths.emplace_back(model, engine);
    for (auto& s : synths)
        threads_.emplace_back([this, s = std::move(s)]() mutable { work(std::move(s)); });
}

SynthesizerPool::~SynthesizerPool() {
    shutdown(std::chrono::milliseconds(0));
    for (auto& t : threads_) t.join();
}

std::shared_ptr<SpeechTicket> SynthesizerPool::submit(SpeechJob job, AudioFn on_audio,
                                                      DoneFn on_done) {
    auto e = std::make_shared<Entry>();
    e->pool = this;
    e->job = std::move(job);
    e->on_audio = std::move(on_audio);
    e->on_done = std::move(on_done);
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (closed_) return nullptr;
        // A free slot takes the job at once; only jobs that must wait count against the queue.
        const size_t waiting_after = queue_.size() + running_.size() + 1;
        if (waiting_after > slots_ && waiting_after - slots_ > max_queue_) return nullptr;
        queue_.push_back(e);
    }
    cv_.notify_one();
    return e;
}

SpeechServiceStats SynthesizerPool::stats() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return {queue_.size(), running_.size(), slots_, max_queue_};
}

void SynthesizerPool::work(Synthesizer synth) {
    for (;;) {
        std::shared_ptr<Entry> e;
        {
            std::unique_lock<std::mutex> lock(mutex_);
            cv_.wait(lock, [&] { return closed_ || !queue_.empty(); });
            if (queue_.empty()) return;
            e = queue_.front();
            queue_.pop_front();
            running_.push_back(e);
        }
        SpeechOutcome outcome;
        if (e->cancelled) {
            outcome.status = SpeechOutcome::Status::cancelled;
        } else {
            try {
                synth.speak(
                    e->job.text, e->job.options,
                    [&](const float* samples, size_t n) {
                        if (e->cancelled) return false;
                        e->on_audio(samples, n);
                        return !e->cancelled;
                    },
                    &outcome.report);
                if (e->cancelled) outcome.status = SpeechOutcome::Status::cancelled;
            } catch (const Error& err) {
                outcome.status = SpeechOutcome::Status::failed;
                outcome.error = err.what();
                outcome.error_code = err.code();
            } catch (const std::exception& err) {
                outcome.status = SpeechOutcome::Status::failed;
                outcome.error = err.what();
            }
        }
        e->on_done(outcome);
        e->on_audio = nullptr;  // the callbacks may hold the caller's objects: let them go
        e->on_done = nullptr;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            running_.erase(std::find(running_.begin(), running_.end(), e));
        }
        idle_cv_.notify_all();
    }
}

// A job cancelled while it waits leaves the queue at once: its client is gone, and it must
// not hold a place that a new request could take.
void SynthesizerPool::drop_queued(const Entry* e) {
    std::shared_ptr<Entry> found;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        const auto it = std::find_if(queue_.begin(), queue_.end(),
                                     [e](const std::shared_ptr<Entry>& q) { return q.get() == e; });
        if (it == queue_.end()) return;
        found = *it;
        queue_.erase(it);
    }
    SpeechOutcome outcome;
    outcome.status = SpeechOutcome::Status::cancelled;
    found->on_done(outcome);
    found->on_audio = nullptr;
    found->on_done = nullptr;
    idle_cv_.notify_all();
}

void SynthesizerPool::shutdown(std::chrono::milliseconds grace) {
    std::unique_lock<std::mutex> lock(mutex_);
    closed_ = true;
    cv_.notify_all();
    const auto idle = [&] { return queue_.empty() && running_.empty(); };
    if (idle_cv_.wait_for(lock, grace, idle)) return;
    std::vector<std::shared_ptr<Entry>> all(queue_.begin(), queue_.end());
    all.insert(all.end(), running_.begin(), running_.end());
    lock.unlock();  // cancel() takes the lock
    for (auto& e : all) e->cancel();
    lock.lock();
    idle_cv_.wait(lock, idle);
}

}  // namespace qwen3tts::server
