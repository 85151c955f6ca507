// Weight-streaming speed of the decode-time linear layer (n = 1, bf16 weights) against the
// machine's read bandwidth: the floor of every talker and code-predictor step.
//   bench_linear [threads]   prints GB/s of a plain read and of linear() per shape, medians.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "backend/cpu/linear_cpu.hpp"
#include "backend/ops.hpp"
#include "core/dtype.hpp"

using namespace qwen3tts;

namespace {

template <typename F>
double median_seconds(int reps, F&& f) {
    std::vector<double> t;
    for (int r = 0; r < reps; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        f();
        t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    const int threads = argc > 1 ? std::atoi(argv[1]) : 2;
    ThreadPool pool(threads);
    // 256 MiB: far beyond the caches, like the talker's 840 MB per frame.
    const size_t n_bytes = size_t(256) << 20;
    std::vector<uint16_t> big(n_bytes / 2, f32_to_bf16(0.5f));
    volatile float sink = 0;
    const double read_s = median_seconds(7, [&] {
        pool.parallel_for(int64_t(big.size() / 8192), 1, [&](int64_t b, int64_t e) {
            uint64_t acc = 0;
            const auto* p = reinterpret_cast<const uint64_t*>(big.data());
            for (int64_t i = b * 2048; i < e * 2048; ++i) acc += p[i];
            sink = sink + float(acc & 1);
        });
    });
    std::printf("plain read           %6.1f GB/s (%d threads, isa %s)\n",
                double(n_bytes) / read_s / 1e9, threads, backend::linear_cpu_isa());

    struct Shape {
        const char* name;
        int64_t out, in;
    } shapes[] = {{"q_proj 0.6B", 2048, 1024},
                  {"gate 0.6B", 3072, 1024},
                  {"down 0.6B", 1024, 3072},
                  {"gate 1.7B", 6144, 2048},
                  {"lm_head cp", 2048, 1024}};
    for (const auto& s : shapes) {
        // Enough copies of the matrix to exceed the caches, cycled through.
        const size_t mat = size_t(s.out * s.in);
        const int copies = int(std::max<size_t>(1, (size_t(192) << 20) / (mat * 2)));
        std::vector<uint16_t> w(mat * size_t(copies));
        std::mt19937 rng(1);
        for (auto& v : w) v = f32_to_bf16(float(rng() % 1000) / 1000.0f - 0.5f);
        std::vector<float> x(size_t(s.in), 0.01f), y(size_t(s.out));
        int which = 0;
        const double sec = median_seconds(5 * copies, [&] {
            TensorView t{"w", DType::bf16, {s.out, s.in}, w.data() + mat * size_t(which)};
            backend::linear({backend::KernelSet::fast, &pool}, x.data(), 1, t, nullptr, y.data());
            which = (which + 1) % copies;
        });
        std::printf("%-18s %6.1f GB/s  (%.1f us per call, %zu KB of weights)\n", s.name,
                    double(mat * 2) / sec / 1e9, sec * 1e6, mat * 2 / 1024);
    }
    return 0;
}
