// What the machine can do, measured in a fraction of a second: the ceilings `qwen3tts bench`
// states its results against (the machines of this project change from day to day, so targets
// are ratios to the floor of the machine the run is on).
//   read bandwidth   all threads streaming through a buffer far larger than the last-level
//                    cache (the floor of decoding: every frame reads all weights once)
//   fp32 peak        independent FMA chains on every thread (the codec decoder's ceiling)
//   bf16 peak        the same with vdpbf16ps, where the CPU has AVX512_BF16
// Each is the best of a few short repetitions, so a moment of contention lowers one
// repetition, not the result. Not for use while other work runs in the process.
#pragma once

#include <cstdint>
#include <optional>

#include "core/thread_pool.hpp"

namespace qwen3tts::backend {

struct MachinePeaks {
    double read_gb_per_s = 0;           // 1e9 bytes per second
    double fp32_gflops = 0;             // 1e9 floating-point operations (an FMA is two)
    std::optional<double> bf16_gflops;  // none without AVX512_BF16 (or AVX-512 state)
};

// Measures on pool.size() threads; about 0.2 s and a 256 MiB buffer, freed on return.
MachinePeaks probe_machine(ThreadPool& pool);

// One thread's share of the compute probes, for benchmarks that time it their own way (per
// thread, per CPU-second: bench/bench_codec.cpp): `iterations` rounds of the FMA chains of the
// active level, or of vdpbf16ps (has_avx512_bf16() must hold). Return the floating-point
// operations done.
double fp32_chains(int64_t iterations);
double bf16_chains(int64_t iterations);

// Reads `bytes` at p (any alignment) on the pool's threads with the loop the read probe uses:
// what a kernel streaming the same bytes is measured against (bench/bench_linear.cpp).
void read_like_probe(ThreadPool& pool, const void* p, size_t bytes);

// Whether the CPU and OS can run vdpbf16ps (AVX512_BF16 with AVX-512 state saved).
bool has_avx512_bf16();

}  // namespace qwen3tts::backend
