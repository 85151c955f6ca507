#include "core/thread_pool.hpp"

#include <immintrin.h>
#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "core/error.hpp"
#include "core/log.hpp"

namespace qwen3tts {

namespace {

// Polling right after a region before a worker sleeps (well under a millisecond): long enough
// to catch the next region of a talker step, short enough that an idle process costs nothing.
constexpr int kSpinIterations = 20000;
// The region word: generation << 16 | number of parts, published together so that a worker
// never pairs one region's generation with another's part count.
constexpr int kPartBits = 16;
constexpr uint64_t kPartMask = (uint64_t(1) << kPartBits) - 1;
constexpr int kMaxThreads = int(kPartMask);

// Set while this thread runs a part of a region: a nested parallel_for then runs inline.
thread_local bool t_in_region = false;

// A balanced region's part: the chunks [front, back) not yet claimed, packed as
// front << 32 | back, so that the part's own thread (taking from the front) and a thread that
// has finished its part (taking from the back) each claim with one compare-and-swap. Its own
// cache line: the owner's claims touch no line that another thread reads until the end.
struct alignas(64) ChunkRange {
    std::atomic<uint64_t> word{0};

    static uint64_t pack(uint64_t front, uint64_t back) { return front << 32 | back; }

    // The owner takes half of what is left (at least one chunk) from the front, a thief one
    // chunk from the back; false when none is left.
    bool claim(bool from_front, uint64_t& first, uint64_t& last) {
        uint64_t w = word.load(std::memory_order_relaxed);
        for (;;) {
            const uint64_t front = w >> 32, back = w & 0xffffffffu;
            if (front >= back) return false;
            const uint64_t take = from_front ? std::max<uint64_t>(1, (back - front) / 2) : 1;
            first = from_front ? front : back - take;
            last = first + take;
            const uint64_t next = from_front ? pack(last, back) : pack(front, first);
            if (word.compare_exchange_weak(w, next, std::memory_order_relaxed)) return true;
        }
    }
};

class Workers {
  public:
    // Adds workers until n_threads threads (with the caller) can share a region.
    void grow(int n_threads) {
        std::lock_guard<std::mutex> region(region_);
        const uint64_t seen = word_.load(std::memory_order_acquire);
        // Workers read ranges_ only inside a region, and no region runs while region_ is held.
        if (ranges_.size() < size_t(n_threads))
            ranges_ = std::vector<ChunkRange>(size_t(n_threads));
        for (; n_workers_ + 1 < n_threads; ++n_workers_) {
            const int index = n_workers_ + 1;
            std::thread([this, index, seen] { loop(index, seen); }).detach();
        }
    }

    // Runs fn over [0, n) in up to `parts` ranges (balanced: see ThreadPool); false if another
    // region holds the workers.
    bool try_run(int64_t n, int64_t grain, int parts, bool balanced, ThreadPool::RangeFn fn) {
        std::unique_lock<std::mutex> region(region_, std::try_to_lock);
        if (!region.owns_lock()) return false;
        parts = std::min(parts, n_workers_ + 1);
        if (parts < 2) return false;
        fn_ = fn;
        n_ = n;
        grain_ = grain;
        parts_ = parts;
        balanced_ = balanced;
        if (balanced) {
            const int64_t chunks = (n + grain - 1) / grain;
            for (int p = 0; p < parts; ++p)
                ranges_[size_t(p)].word.store(ChunkRange::pack(uint64_t(chunks * p / parts),
                                                               uint64_t(chunks * (p + 1) / parts)),
                                              std::memory_order_relaxed);
        }
        error_ = nullptr;
        pending_.store(parts - 1, std::memory_order_relaxed);
        {
            std::lock_guard<std::mutex> lock(sleep_mutex_);
            generation_ += 1;
            word_.store(generation_ << kPartBits | uint64_t(parts), std::memory_order_release);
        }
        wake_.notify_all();
        run_part(0);
        // Spin briefly, then yield: a descheduled worker must get the core back rather than
        // watch this thread spin. With more parts than CPUs some part is always waiting for a
        // core, so yield at once.
        const int pause_spins = parts <= cpus_ ? 2000 : 0;
        for (int spins = 0; pending_.load(std::memory_order_acquire) != 0; ++spins) {
            if (spins < pause_spins)
                _mm_pause();
            else
                std::this_thread::yield();
        }
        if (error_) std::rethrow_exception(error_);
        return true;
    }

  private:
    void loop(int index, uint64_t seen) {
        bool spin = false;
        for (;;) {
            uint64_t word = word_.load(std::memory_order_acquire);
            for (int i = 0; spin && word == seen && i < kSpinIterations; ++i) {
                _mm_pause();
                word = word_.load(std::memory_order_acquire);
            }
            if (word == seen) {
                std::unique_lock<std::mutex> lock(sleep_mutex_);
                wake_.wait(lock, [&] {
                    word = word_.load(std::memory_order_acquire);
                    return word != seen;
                });
            }
            seen = word;
            // Only a worker with a part may touch the job: the caller waits for exactly those.
            const int parts = int(word & kPartMask);
            if (index < parts) {
                run_part(index);
                pending_.fetch_sub(1, std::memory_order_acq_rel);
            }
            // Polling for the next region pays only when every part had a core of its own:
            // with more threads than CPUs it would take the core from the thread that has
            // work between regions (the caller, another worker), so sleep at once.
            spin = index < parts && parts <= cpus_;
        }
    }

    void run_part(int index) {
        t_in_region = true;
        try {
            if (balanced_) {
                run_balanced_part(index);
            } else {
                const int64_t chunks = (n_ + grain_ - 1) / grain_;
                const int64_t begin = chunks * index / parts_ * grain_;
                const int64_t end = std::min(n_, chunks * (index + 1) / parts_ * grain_);
                if (begin < end) fn_.call(fn_.obj, begin, end);
            }
        } catch (...) {
            std::lock_guard<std::mutex> lock(error_mutex_);
            if (!error_) error_ = std::current_exception();
        }
        t_in_region = false;
    }

    // The part's own chunks front to back, half of what is left at a time (few claims, the
    // last ones small), then the other parts' chunks one by one from their backs: a thread
    // that finishes early takes over the end of a slower thread's work. (A quarter or an
    // eighth at a time measured the same; all at once is the static split.)
    void run_balanced_part(int index) {
        auto call = [&](uint64_t first, uint64_t last) {
            fn_.call(fn_.obj, int64_t(first) * grain_, std::min(n_, int64_t(last) * grain_));
        };
        ChunkRange& own = ranges_[size_t(index)];
        uint64_t first = 0, last = 0;
        while (own.claim(true, first, last)) call(first, last);
        for (int k = 1; k < parts_; ++k) {
            ChunkRange& other = ranges_[size_t((index + k) % parts_)];
            while (other.claim(false, first, last)) call(first, last);
        }
    }

    const int cpus_ = ThreadPool::online_cpus();
    std::mutex region_;  // held by the thread whose region runs on the workers
    int n_workers_ = 0;  // guarded by region_
    ThreadPool::RangeFn fn_{};
    int64_t n_ = 0, grain_ = 1;
    int parts_ = 0;
    bool balanced_ = false;
    std::vector<ChunkRange> ranges_;  // one per part of a balanced region; sized by grow()
    uint64_t generation_ = 0;         // guarded by sleep_mutex_
    std::atomic<uint64_t> word_{0};
    std::atomic<int> pending_{0};
    std::mutex error_mutex_;
    std::exception_ptr error_;
    std::mutex sleep_mutex_;
    std::condition_variable wake_;
};

Workers*& current_workers() {
    static Workers* w = nullptr;
    return w;
}

// Never destroyed: idle workers sleep until the process exits, so no thread is joined during
// static destruction.
Workers& workers() {
    static const bool initialised = [] {
        current_workers() = new Workers;
        // A forked child has none of the parent's threads (and maybe a locked mutex of
        // theirs): it starts a fresh, empty set.
        pthread_atfork(nullptr, nullptr, [] { current_workers() = new Workers; });
        return true;
    }();
    (void)initialised;
    return *current_workers();
}

}  // namespace

int ThreadPool::online_cpus() {
    const long n = ::sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? int(std::min<long>(n, kMaxThreads)) : 1;
}

int resolve_thread_count(int requested, const std::string& option, bool oversubscribe) {
    if (requested < 0)
        throw Error(
            ErrorCode::invalid_argument,
            option + " must be >= 0 (0 = all online CPUs), got " + std::to_string(requested));
    const int cpus = ThreadPool::online_cpus();
    if (requested == 0) return cpus;
    if (requested > kMaxThreads)
        throw Error(ErrorCode::invalid_argument, option + " = " + std::to_string(requested) +
                                                     " is above the limit of " +
                                                     std::to_string(kMaxThreads));
    if (requested > cpus && !oversubscribe) {
        log_warning(option + " = " + std::to_string(requested) + " is more than the " +
                    std::to_string(cpus) + " online CPUs; using " + std::to_string(cpus));
        return cpus;
    }
    return requested;
}

ThreadPool::ThreadPool(int n_threads) {
    if (n_threads <= 0) n_threads = online_cpus();
    n_threads_ = std::min(n_threads, kMaxThreads);
    if (!t_in_region) workers().grow(n_threads_);
}

void ThreadPool::run(int64_t n, int64_t grain, bool balanced, RangeFn fn) {
    if (n <= 0) return;
    if (grain < 1) grain = 1;
    const int64_t chunks = (n + grain - 1) / grain;
    const int parts = int(std::min<int64_t>(chunks, n_threads_));
    // Chunk numbers are claimed as 32-bit halves of one word.
    balanced = balanced && chunks <= int64_t(0xffffffffu);
    if (parts >= 2 && !t_in_region && workers().try_run(n, grain, parts, balanced, fn)) return;
    fn.call(fn.obj, 0, n);
}

}  // namespace qwen3tts
