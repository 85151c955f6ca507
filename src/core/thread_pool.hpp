// A small fork-join pool for the hot loop: parallel_for splits [0, n) into contiguous ranges,
// one per thread, and the calling thread does the first range itself; parallel_for_balanced
// lets a thread that is done take over the end of a slower thread's range.
//
// All ThreadPool objects of a process are handles onto one process-wide set of workers (grown
// to the largest size asked for), so several Sessions do not each keep a set of threads.
// Workers spin briefly right after a region (a talker step issues hundreds of short regions
// and a condition-variable wake-up per region would cost more than the work), then sleep: an
// idle process uses no CPU. After a region with more parts than online CPUs (oversubscribed)
// they sleep at once, leaving the cores to the threads that have work.
//
// Thread-safety: any thread may call parallel_for on any handle. One region runs on the
// workers at a time; a region that starts while another is running (another Session on
// another thread, or a parallel_for nested inside a job) runs inline on its calling thread,
// single-threaded. Results do not depend on the split, so it is only slower, never different.
// An exception thrown by fn on any thread is rethrown on the calling thread after every range
// has finished (the first one wins; later ranges still run).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>

namespace qwen3tts {

class ThreadPool {
  public:
    // n_threads <= 0 means the number of online CPUs.
    explicit ThreadPool(int n_threads);

    int size() const { return n_threads_; }

    // Calls fn(begin, end) on disjoint ranges covering [0, n); ranges are multiples of `grain`
    // (except the last). Returns when all ranges are done. fn is only referenced, never copied
    // or allocated: a parallel region costs no heap allocation.
    template <typename F>
    void parallel_for(int64_t n, int64_t grain, F&& fn) {
        run(n, grain, false, range_fn(fn));
    }

    // parallel_for for loops whose threads may run at different speeds (a core shared with
    // another process, one thread's reads slower than the other's): each thread starts on its
    // contiguous share as in parallel_for, but takes it a few chunks of `grain` at a time, and
    // a thread that is done takes the rest of a slower one's share. fn is called several
    // times per thread, on ranges that are multiples of `grain`; which thread gets which range
    // varies from run to run, so fn's result must not depend on it.
    template <typename F>
    void parallel_for_balanced(int64_t n, int64_t grain, F&& fn) {
        run(n, grain, true, range_fn(fn));
    }

    // The number of online CPUs (at least 1).
    static int online_cpus();

    // A non-owning reference to a callable taking (begin, end).
    struct RangeFn {
        void* obj;
        void (*call)(void* obj, int64_t begin, int64_t end);
    };

  private:
    template <typename F>
    static RangeFn range_fn(F& fn) {
        using Fn = std::remove_reference_t<F>;
        return {const_cast<void*>(static_cast<const void*>(std::addressof(fn))),
                [](void* obj, int64_t b, int64_t e) { (*static_cast<Fn*>(obj))(b, e); }};
    }

    void run(int64_t n, int64_t grain, bool balanced, RangeFn fn);

    int n_threads_;
};

// A thread count asked for by a caller (`option` names it in messages): negative is an Error;
// 0 means the online CPUs; more than the online CPUs only slows every region down (the extra
// threads wait for a core), so it is capped there with a warning through the log sink unless
// `oversubscribe` is set.
int resolve_thread_count(int requested, const std::string& option, bool oversubscribe = false);

}  // namespace qwen3tts
