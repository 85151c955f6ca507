// A small fork-join pool for the hot loop: parallel_for splits [0, n) into contiguous ranges,
// one per thread, and the calling thread does the first range itself. Workers spin briefly
// before sleeping, because a talker step issues hundreds of short parallel regions and a
// condition-variable wake-up per region would cost more than the work.
// Thread-safety: one parallel_for at a time per pool (a Session owns its pool).
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace qwen3tts {

class ThreadPool {
public:
    // n_threads <= 0 means the number of online CPUs.
    explicit ThreadPool(int n_threads);
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    int size() const { return int(workers_.size()) + 1; }

    // Calls fn(begin, end) on disjoint ranges covering [0, n); ranges are multiples of `grain`
    // (except the last). Returns when all ranges are done.
    void parallel_for(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn);

private:
    void worker_loop(int index);
    void run_range(int index);

    std::vector<std::thread> workers_;
    const std::function<void(int64_t, int64_t)>* job_ = nullptr;
    int64_t job_n_ = 0;
    int64_t job_grain_ = 1;
    int job_parts_ = 0;
    std::atomic<uint64_t> generation_{0};
    std::atomic<int> pending_{0};
    std::atomic<bool> stop_{false};
    std::mutex mutex_;
    std::condition_variable wake_;
};

}  // namespace qwen3tts
