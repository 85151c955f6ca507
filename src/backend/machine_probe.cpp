#include "backend/machine_probe.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <vector>

#include "backend/cpu/cpu_features.hpp"
#include "backend/cpu/simd_targets.hpp"
#include "core/huge_buffer.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#define QWEN3TTS_AVX512_BF16 \
    __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,f16c,fma")))

namespace qwen3tts::backend {

namespace {

// 256 MiB: eight times the largest last-level cache of this project's machines (32 MiB), so
// nearly every byte comes from memory, as a frame's weights do.
constexpr size_t kReadBytes = size_t(256) << 20;
constexpr size_t kReadBlock = size_t(64) << 10;  // bytes per parallel_for index
// Independent accumulator chains per thread: enough to cover FMA latency (4-5 cycles) on two
// pipes; each loop iteration issues one instruction per chain. AVX2 has 16 ymm registers: 16
// chains and the two constants spilled three chains to memory on every iteration.
constexpr int kChains = 16;
constexpr int kChainsAvx2 = 12;
constexpr int64_t kComputeIterations = int64_t(1) << 19;
constexpr int kRepetitions = 3;

// Sinks the probes' results so the loops are not optimised away.
std::atomic<uint64_t> g_sink{0};

void sink(double v) {
    g_sink.fetch_add(uint64_t(v != 0), std::memory_order_relaxed);
}

template <typename F>
double best_seconds(F&& f) {
    double best = 1e30;
    for (int r = 0; r < kRepetitions; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        f();
        best = std::min(
            best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    return std::max(best, 1e-9);
}

// ---- read bandwidth ----

// `bytes` a multiple of 128.
QWEN3TTS_AVX2 uint64_t read_avx2(const uint8_t* p, size_t bytes) {
    __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0;
    for (size_t i = 0; i < bytes; i += 128) {
        a0 = _mm256_add_epi64(a0, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i)));
        a1 = _mm256_add_epi64(a1, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i + 32)));
        a2 = _mm256_add_epi64(a2, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i + 64)));
        a3 = _mm256_add_epi64(a3, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i + 96)));
    }
    const __m256i s = _mm256_add_epi64(_mm256_add_epi64(a0, a1), _mm256_add_epi64(a2, a3));
    // Unsigned sum: the lanes are arbitrary bits, their signed sum may overflow.
    return uint64_t(_mm256_extract_epi64(s, 0)) + uint64_t(_mm256_extract_epi64(s, 3));
}

uint64_t read_generic(const uint8_t* p, size_t bytes) {
    uint64_t acc = 0;
    size_t i = 0;
    for (; i + 8 <= bytes; i += 8) {
        uint64_t v;
        std::memcpy(&v, p + i, 8);
        acc += v;
    }
    for (; i < bytes; ++i) acc += p[i];
    return acc;
}

uint64_t read_any(cpu::Isa isa, const uint8_t* p, size_t bytes) {
    if (isa < cpu::Isa::avx2) return read_generic(p, bytes);
    const size_t vectors = bytes / 128 * 128;
    return read_avx2(p, vectors) + read_generic(p + vectors, bytes - vectors);
}

double probe_read(ThreadPool& pool, cpu::Isa isa) {
    HugeBuffer<uint8_t> buf(kReadBytes);
    const int64_t blocks = int64_t(kReadBytes / kReadBlock);
    // First touch from the threads that will read (their NUMA node, their pages).
    pool.parallel_for(blocks, 1, [&](int64_t b, int64_t e) {
        std::memset(buf.data() + size_t(b) * kReadBlock, 1, size_t(e - b) * kReadBlock);
    });
    const double s = best_seconds([&] {
        pool.parallel_for(blocks, 1, [&](int64_t b, int64_t e) {
            const uint8_t* p = buf.data() + size_t(b) * kReadBlock;
            const size_t n = size_t(e - b) * kReadBlock;
            sink(double(read_any(isa, p, n)));
        });
    });
    return double(kReadBytes) / s / 1e9;
}

// ---- compute peaks ----

QWEN3TTS_AVX512 float fma_avx512(int64_t iterations) {
    __m512 acc[kChains];
    for (int c = 0; c < kChains; ++c) acc[c] = _mm512_set1_ps(float(c));
    const __m512 m = _mm512_set1_ps(0.999f), a = _mm512_set1_ps(0.001f);
    for (int64_t i = 0; i < iterations; ++i) {
#pragma GCC unroll 16
        for (int c = 0; c < kChains; ++c) acc[c] = _mm512_fmadd_ps(acc[c], m, a);
    }
    for (int c = 1; c < kChains; ++c) acc[0] = _mm512_add_ps(acc[0], acc[c]);
    return _mm512_reduce_add_ps(acc[0]);
}

QWEN3TTS_AVX2 float fma_avx2(int64_t iterations) {
    __m256 acc[kChainsAvx2];
    for (int c = 0; c < kChainsAvx2; ++c) acc[c] = _mm256_set1_ps(float(c));
    const __m256 m = _mm256_set1_ps(0.999f), a = _mm256_set1_ps(0.001f);
    for (int64_t i = 0; i < iterations; ++i) {
#pragma GCC unroll 16
        for (int c = 0; c < kChainsAvx2; ++c) acc[c] = _mm256_fmadd_ps(acc[c], m, a);
    }
    for (int c = 1; c < kChainsAvx2; ++c) acc[0] = _mm256_add_ps(acc[0], acc[c]);
    return hsum256(acc[0]);
}

float fma_generic(int64_t iterations) {
    float acc[kChains];
    for (int c = 0; c < kChains; ++c) acc[c] = float(c);
    for (int64_t i = 0; i < iterations; ++i) {
#pragma GCC unroll 16
        for (int c = 0; c < kChains; ++c) acc[c] = acc[c] * 0.999f + 0.001f;
    }
    float s = 0;
    for (float v : acc) s += v;
    return s;
}

// vdpbf16ps: per f32 lane, two bf16 products added to the accumulator (4 operations).
QWEN3TTS_AVX512_BF16 float dot_bf16_avx512(int64_t iterations) {
    __m512 acc[kChains];
    for (int c = 0; c < kChains; ++c) acc[c] = _mm512_set1_ps(float(c));
    const __m512bh x = (__m512bh)_mm512_set1_epi16(0x3a83);  // ~0.001
    for (int64_t i = 0; i < iterations; ++i) {
#pragma GCC unroll 16
        for (int c = 0; c < kChains; ++c) acc[c] = _mm512_dpbf16_ps(acc[c], x, x);
    }
    for (int c = 1; c < kChains; ++c) acc[0] = _mm512_add_ps(acc[0], acc[c]);
    return _mm512_reduce_add_ps(acc[0]);
}

// Runs chains(kComputeIterations) on every thread at once; returns GFLOP/s.
double probe_compute(ThreadPool& pool, double (*chains)(int64_t)) {
    const int threads = pool.size();
    std::vector<double> flops(size_t(threads), 0.0);
    const double s = best_seconds([&] {
        pool.parallel_for(threads, 1, [&](int64_t b, int64_t e) {
            for (int64_t t = b; t < e; ++t) flops[size_t(t)] = chains(kComputeIterations);
        });
    });
    double total = 0;
    for (double f : flops) total += f;
    return total / s / 1e9;
}

}  // namespace

bool has_avx512_bf16() {
#if defined(__x86_64__) || defined(__i386__)
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (cpu::detected_isa() != cpu::Isa::avx512 || !__get_cpuid_count(7, 1, &a, &b, &c, &d))
        return false;
    return (a >> 5) & 1u;  // CPUID.(EAX=7,ECX=1):EAX[5] AVX512_BF16
#else
    return false;
#endif
}

double fp32_chains(int64_t iterations) {
    const cpu::Isa isa = cpu::active_isa();
    if (isa == cpu::Isa::avx512) {
        sink(fma_avx512(iterations));
        return double(iterations) * kChains * 16 * 2;
    }
    if (isa == cpu::Isa::avx2) {
        sink(fma_avx2(iterations));
        return double(iterations) * kChainsAvx2 * 8 * 2;
    }
    sink(fma_generic(iterations));
    return double(iterations) * kChains * 2;
}

double bf16_chains(int64_t iterations) {
    sink(dot_bf16_avx512(iterations));
    return double(iterations) * kChains * 16 * 4;
}

MachinePeaks probe_machine(ThreadPool& pool) {
    MachinePeaks m;
    m.read_gb_per_s = probe_read(pool, cpu::active_isa());
    m.fp32_gflops = probe_compute(pool, fp32_chains);
    if (cpu::active_isa() == cpu::Isa::avx512 && has_avx512_bf16())
        m.bf16_gflops = probe_compute(pool, bf16_chains);
    return m;
}

void read_like_probe(ThreadPool& pool, const void* p, size_t bytes) {
    const cpu::Isa isa = cpu::active_isa();
    const auto* base = static_cast<const uint8_t*>(p);
    const int64_t blocks = int64_t((bytes + kReadBlock - 1) / kReadBlock);
    pool.parallel_for(blocks, 1, [&](int64_t b, int64_t e) {
        const size_t begin = size_t(b) * kReadBlock, end = std::min(bytes, size_t(e) * kReadBlock);
        sink(double(read_any(isa, base + begin, end - begin)));
    });
}

}  // namespace qwen3tts::backend
