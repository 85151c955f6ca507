#include "support/join_schedule.hpp"

namespace qwen3tts::testing {

JoinSchedule::JoinSchedule(std::vector<int64_t> join_after,
                           std::function<SpeechRequest(size_t)> submit)
    : join_after_(std::move(join_after)),
      submit_(std::move(submit)),
      requests_(join_after_.size()) {}

void JoinSchedule::frame() {
    const std::lock_guard<std::mutex> lk(mu_);
    ++frames_;
    submit_due();
}

void JoinSchedule::submit_due() {
    for (; submitted_ < join_after_.size() && frames_ >= join_after_[submitted_]; ++submitted_)
        requests_[submitted_] = submit_(submitted_);
}

std::vector<SpeechRequest> JoinSchedule::run() {
    {
        const std::lock_guard<std::mutex> lk(mu_);
        submit_due();
    }
    for (;;) {
        std::vector<SpeechRequest> running;
        {
            const std::lock_guard<std::mutex> lk(mu_);
            running.assign(requests_.begin(), requests_.begin() + long(submitted_));
        }
        for (auto& r : running) r.wait();
        const std::lock_guard<std::mutex> lk(mu_);
        if (submitted_ == join_after_.size()) return requests_;
        requests_[submitted_] = submit_(submitted_);
        ++submitted_;
    }
}

}  // namespace qwen3tts::testing
