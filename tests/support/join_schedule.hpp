// Submits a list of requests to a Scheduler as a test's frame callbacks count frames: request i
// once the requests already running have made join_after[i] frames together, or, when they all
// ended before that, right then. Submissions happen inside a frame callback (the scheduler's
// thread, between steps), so a given list joins at the same frames every run.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <vector>

#include "qwen3tts/qwen3tts.hpp"

namespace qwen3tts::testing {

class JoinSchedule {
  public:
    // `submit(i)` submits request i and returns its handle; it runs with the schedule's lock
    // held (one submission at a time).
    JoinSchedule(std::vector<int64_t> join_after, std::function<SpeechRequest(size_t)> submit);

    // From a frame callback: one more frame was made; submits the requests now due.
    void frame();

    // Submits the requests due at the start, then the rest as they fall due; returns every
    // request's handle once all were submitted and all ended.
    std::vector<SpeechRequest> run();

  private:
    void submit_due();  // with mu_ held

    std::vector<int64_t> join_after_;
    std::function<SpeechRequest(size_t)> submit_;
    std::mutex mu_;  // guards everything below
    std::vector<SpeechRequest> requests_;
    size_t submitted_ = 0;
    int64_t frames_ = 0;
};

}  // namespace qwen3tts::testing
