#include "server/scheduler_service.hpp"

#include <algorithm>

namespace qwen3tts::server {

struct SchedulerService::Ticket : TextStreamTicket {
    SpeechRequest request;
    void cancel() override { request.cancel(); }
    void push_text(const std::string& text) override { request.push_text(text); }
    void flush_text() override { request.flush_text(); }
    void finish_text() override { request.finish_text(); }
};

SchedulerService::SchedulerService(const Model& model, const SchedulerOptions& options)
    : options_(options), scheduler_(model, options) {}

SchedulerService::~SchedulerService() {
    shutdown(std::chrono::milliseconds(0));
}

std::shared_ptr<SpeechTicket> SchedulerService::submit(SpeechJob job, AudioFn on_audio,
                                                       DoneFn on_done) {
    return submit_job(std::move(job), std::move(on_audio), std::move(on_done), false);
}

std::shared_ptr<TextStreamTicket> SchedulerService::submit_text_stream(SpeechJob job,
                                                                       AudioFn on_audio,
                                                                       DoneFn on_done) {
    return submit_job(std::move(job), std::move(on_audio), std::move(on_done), true);
}

std::shared_ptr<SchedulerService::Ticket> SchedulerService::submit_job(SpeechJob job,
                                                                       AudioFn on_audio,
                                                                       DoneFn on_done,
                                                                       bool text_stream) {
    auto ticket = std::make_shared<Ticket>();
    RequestCallbacks callbacks;
    callbacks.on_audio = [on_audio = std::move(on_audio)](const float* samples, size_t n) {
        on_audio(samples, n);
        return true;
    };
    // The HTTP side keeps only a weak reference to the ticket (to cancel it when its client
    // leaves): the request keeps it alive until it ends (the scheduler drops its callbacks
    // then).
    callbacks.on_done = [this, ticket, on_done = std::move(on_done)](const RequestResult& r) {
        SpeechOutcome o;
        switch (r.status) {
            case RequestResult::Status::completed:
                o.status = SpeechOutcome::Status::done;
                break;
            case RequestResult::Status::cancelled:
                o.status = SpeechOutcome::Status::cancelled;
                break;
            case RequestResult::Status::failed:
                o.status = SpeechOutcome::Status::failed;
                o.error = r.error;
                o.error_code = r.error_code;
                break;
        }
        o.report = r.report;
        on_done(o);
        ended();
    };
    const std::lock_guard<std::mutex> lock(mutex_);
    if (closed_) return nullptr;
    try {
        ticket->request =
            text_stream ? scheduler_.submit_incremental(job.text, job.options, std::move(callbacks))
                        : scheduler_.submit(job.text, job.options, std::move(callbacks));
    } catch (const Error& e) {
        if (e.code() == ErrorCode::busy) return nullptr;
        throw;
    }
    ++in_flight_;
    tickets_.erase(std::remove_if(tickets_.begin(), tickets_.end(),
                                  [](const std::weak_ptr<Ticket>& t) { return t.expired(); }),
                   tickets_.end());
    tickets_.push_back(ticket);
    return ticket;
}

void SchedulerService::ended() {
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        --in_flight_;
    }
    idle_cv_.notify_all();
}

SpeechServiceStats SchedulerService::stats() const {
    const Scheduler::Load load = scheduler_.load();
    return {size_t(load.queued), size_t(load.active), size_t(options_.max_batch),
            size_t(options_.max_queue)};
}

void SchedulerService::shutdown(std::chrono::milliseconds grace) {
    std::unique_lock<std::mutex> lock(mutex_);
    closed_ = true;
    const auto idle = [&] { return in_flight_ == 0; };
    if (idle_cv_.wait_for(lock, grace, idle)) return;
    std::vector<std::shared_ptr<Ticket>> live;
    for (auto& t : tickets_)
        if (auto s = t.lock()) live.push_back(s);
    lock.unlock();
    for (auto& t : live) t->cancel();
    lock.lock();
    idle_cv_.wait(lock, idle);
}

}  // namespace qwen3tts::server
