#include "core/thread_pool.hpp"

#include <immintrin.h>

namespace qwen3tts {

namespace {
constexpr int kSpinIterations = 20000;  // ~100 us of polling before a worker sleeps
}

ThreadPool::ThreadPool(int n_threads) {
    if (n_threads <= 0) n_threads = int(std::thread::hardware_concurrency());
    if (n_threads <= 0) n_threads = 1;
    for (int i = 1; i < n_threads; ++i) workers_.emplace_back([this, i] { worker_loop(i); });
}

ThreadPool::~ThreadPool() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_.store(true);
        generation_.fetch_add(1);
    }
    wake_.notify_all();
    for (auto& t : workers_) t.join();
}

void ThreadPool::run_range(int index) {
    const int64_t chunks = (job_n_ + job_grain_ - 1) / job_grain_;
    const int64_t c0 = chunks * index / job_parts_;
    const int64_t c1 = chunks * (index + 1) / job_parts_;
    const int64_t begin = c0 * job_grain_;
    const int64_t end = std::min(job_n_, c1 * job_grain_);
    if (begin < end) (*job_)(begin, end);
}

void ThreadPool::parallel_for(int64_t n, int64_t grain,
                              const std::function<void(int64_t, int64_t)>& fn) {
    if (n <= 0) return;
    if (grain < 1) grain = 1;
    const int64_t chunks = (n + grain - 1) / grain;
    if (workers_.empty() || chunks < 2) {
        fn(0, n);
        return;
    }
    job_ = &fn;
    job_n_ = n;
    job_grain_ = grain;
    job_parts_ = int(std::min<int64_t>(chunks, size()));
    pending_.store(int(workers_.size()), std::memory_order_relaxed);
    {
        std::lock_guard<std::mutex> lock(mutex_);
        generation_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
    run_range(0);
    // Spin briefly, then yield: on an oversubscribed machine a descheduled worker must get
    // the core back rather than watch this thread spin.
    for (int spins = 0; pending_.load(std::memory_order_acquire) != 0; ++spins) {
        if (spins < 2000) _mm_pause();
        else std::this_thread::yield();
    }
    job_ = nullptr;
}

void ThreadPool::worker_loop(int index) {
    uint64_t seen = 0;
    for (;;) {
        int spins = 0;
        while (generation_.load(std::memory_order_acquire) == seen && spins < kSpinIterations) {
            _mm_pause();
            ++spins;
        }
        if (generation_.load(std::memory_order_acquire) == seen) {
            std::unique_lock<std::mutex> lock(mutex_);
            wake_.wait(lock, [&] { return generation_.load() != seen; });
        }
        seen = generation_.load(std::memory_order_acquire);
        if (stop_.load()) return;
        if (index < job_parts_) run_range(index);
        pending_.fetch_sub(1, std::memory_order_acq_rel);
    }
}

}  // namespace qwen3tts
