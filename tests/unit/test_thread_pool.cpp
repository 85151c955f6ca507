// The process-wide fork-join pool: coverage of ranges, exceptions from any part, concurrent
// and nested regions, and no CPU use while idle.
#include <gtest/gtest.h>
#include <time.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "core/error.hpp"
#include "core/log.hpp"
#include "core/thread_pool.hpp"

namespace qwen3tts {
namespace {

// Every index of [0, n) is visited exactly once, in ranges that start at multiples of grain.
void expect_covers(ThreadPool& pool, int64_t n, int64_t grain, bool balanced = false) {
    std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
    std::atomic<int> misaligned{0};
    auto fn = [&](int64_t b, int64_t e) {
        if (b % grain != 0 || (e % grain != 0 && e != n)) misaligned.fetch_add(1);
        for (int64_t i = b; i < e; ++i) hits[size_t(i)].fetch_add(1);
    };
    if (balanced)
        pool.parallel_for_balanced(n, grain, fn);
    else
        pool.parallel_for(n, grain, fn);
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(hits[size_t(i)].load(), 1) << "index " << i;
    EXPECT_EQ(misaligned.load(), 0);
}

TEST(ThreadPool, CoversTheRangeExactlyOnce) {
    ThreadPool pool(4);
    for (int64_t n : {1, 2, 3, 7, 16, 1000, 4097}) expect_covers(pool, n, 1);
    expect_covers(pool, 1000, 16);
}

TEST(ThreadPool, BalancedCoversTheRangeExactlyOnce) {
    for (int threads : {2, 3, 4}) {
        ThreadPool pool(threads);
        for (int64_t n : {1, 2, 3, 7, 16, 1000, 4097}) expect_covers(pool, n, 1, true);
        for (int64_t n : {15, 16, 17, 1000}) expect_covers(pool, n, 16, true);
    }
}

// A thread that is held up leaves the rest of its share to the others: here the caller's first
// range blocks until everything outside it is done, and that range is only part of the
// caller's half (with the static split it is the whole half, and the worker does no more).
TEST(ThreadPool, BalancedHandsASlowThreadsWorkToTheOthers) {
    ThreadPool pool(2);
    constexpr int64_t n = 64;
    const auto caller = std::this_thread::get_id();
    std::atomic<int64_t> done_elsewhere{0};
    int64_t first_range = 0;
    bool timed_out = false;
    bool first = true;
    pool.parallel_for_balanced(n, 1, [&](int64_t b, int64_t e) {
        if (std::this_thread::get_id() != caller) {
            done_elsewhere.fetch_add(e - b);
            return;
        }
        if (!first) return;
        first = false;
        first_range = e - b;
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (done_elsewhere.load() < n - first_range && !timed_out) {
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
            timed_out = std::chrono::steady_clock::now() > deadline;
        }
    });
    EXPECT_FALSE(timed_out);
    EXPECT_EQ(done_elsewhere.load(), n - first_range);
    EXPECT_LT(first_range, n / 2);
}

TEST(ThreadPool, ExceptionInAWorkerPartIsRethrownAndThePoolStillWorks) {
    ThreadPool pool(4);
    std::atomic<int> finished{0};
    try {
        pool.parallel_for(4, 1, [&](int64_t b, int64_t) {
            if (b == 3) throw std::runtime_error("part 3 failed");
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            finished.fetch_add(1);
        });
        FAIL() << "no exception";
    } catch (const std::runtime_error& e) {
        EXPECT_STREQ(e.what(), "part 3 failed");
    }
    // The other parts had all finished before parallel_for returned.
    EXPECT_EQ(finished.load(), 3);
    expect_covers(pool, 1000, 1);
}

TEST(ThreadPool, ExceptionInTheCallersPartWaitsForTheWorkers) {
    ThreadPool pool(4);
    std::atomic<int> finished{0};
    EXPECT_THROW(pool.parallel_for(4, 1,
                                   [&](int64_t b, int64_t) {
                                       if (b == 0) throw std::logic_error("part 0");
                                       std::this_thread::sleep_for(std::chrono::milliseconds(20));
                                       finished.fetch_add(1);
                                   }),
                 std::logic_error);
    EXPECT_EQ(finished.load(), 3);
}

TEST(ThreadPool, NestedRegionRunsInline) {
    ThreadPool pool(4);
    std::atomic<int64_t> sum{0};
    pool.parallel_for(4, 1, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i)
            pool.parallel_for(100, 1, [&](int64_t b2, int64_t e2) {
                for (int64_t j = b2; j < e2; ++j) sum.fetch_add(j);
            });
    });
    EXPECT_EQ(sum.load(), 4 * 4950);
}

TEST(ThreadPool, ConcurrentRegionsFromManyThreadsAreAllComplete) {
    std::vector<std::thread> threads;
    std::atomic<int> bad{0};
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&] {
            ThreadPool pool(3);
            for (int r = 0; r < 200; ++r) {
                std::atomic<int64_t> sum{0};
                pool.parallel_for(64, 1, [&](int64_t b, int64_t e) {
                    for (int64_t i = b; i < e; ++i) sum.fetch_add(i);
                });
                if (sum.load() != 2016) bad.fetch_add(1);
            }
        });
    for (auto& t : threads) t.join();
    EXPECT_EQ(bad.load(), 0);
}

TEST(ThreadPool, HandlesShareOneSetOfWorkers) {
    ThreadPool small(2), large(4);
    EXPECT_EQ(small.size(), 2);
    EXPECT_EQ(large.size(), 4);
    EXPECT_GE(ThreadPool(0).size(), 1);
    EXPECT_EQ(ThreadPool(0).size(), ThreadPool::online_cpus());
    expect_covers(small, 100, 1);
    expect_covers(large, 100, 1);
}

TEST(ThreadCount, NegativeIsAnErrorNamingTheOption) {
    try {
        resolve_thread_count(-4, "--threads");
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(), "--threads must be >= 0 (0 = all online CPUs), got -4");
    }
}

TEST(ThreadCount, AboveTheOnlineCpusIsCappedWithAWarningUnlessOversubscribing) {
    const int cpus = ThreadPool::online_cpus();
    std::vector<std::string> warnings;
    set_log_sink([&](LogLevel level, const std::string& m) {
        if (level == LogLevel::warning) warnings.push_back(m);
    });
    EXPECT_EQ(resolve_thread_count(0, "threads"), cpus);
    EXPECT_EQ(resolve_thread_count(cpus, "threads"), cpus);
    EXPECT_TRUE(warnings.empty());
    EXPECT_EQ(resolve_thread_count(1000, "threads"), cpus);
    EXPECT_EQ(resolve_thread_count(1000, "threads", true), 1000);
    set_log_sink(nullptr);
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_EQ(warnings[0], "threads = 1000 is more than the " + std::to_string(cpus) +
                               " online CPUs; using " + std::to_string(cpus));
}

double process_cpu_ms() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

TEST(ThreadPool, IdleWorkersUseNoCpu) {
    ThreadPool pool(4);
    std::atomic<int64_t> sum{0};
    pool.parallel_for(1000, 1, [&](int64_t b, int64_t e) { sum.fetch_add(e - b); });
    ASSERT_EQ(sum.load(), 1000);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    const double t0 = process_cpu_ms();
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    EXPECT_LT(process_cpu_ms() - t0, 30.0);
}

// With more threads than CPUs, workers sleep right after a region instead of polling for the
// next one: the gaps between regions (the caller's own work between frames) cost no CPU.
// Polling cost 73 ms of CPU over these 100 gaps (two workers spinning 20000 pauses each); the
// wake-ups alone cost 5-26 ms on the 2-CPU machine loaded 8-fold by other jobs.
TEST(ThreadPool, OversubscribedWorkersDoNotSpinBetweenRegions) {
    ThreadPool pool(ThreadPool::online_cpus() + 1);
    std::atomic<int64_t> sum{0};
    const auto region = [&] {
        pool.parallel_for(pool.size(), 1, [&](int64_t b, int64_t e) { sum.fetch_add(e - b); });
    };
    region();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const double t0 = process_cpu_ms();
    constexpr int kRegions = 100;
    for (int r = 0; r < kRegions; ++r) {
        region();
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    const double used_ms = process_cpu_ms() - t0;
    EXPECT_EQ(sum.load(), int64_t(kRegions + 1) * pool.size());
    EXPECT_LT(used_ms, 40.0) << "CPU time over " << kRegions << " regions 2 ms apart";
}

}  // namespace
}  // namespace qwen3tts
