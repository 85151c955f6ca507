// Weight-streaming speed of the decode-time linear layer (n = 1) against the machine's read
// bandwidth: the floor of every talker and code-predictor step. Per shape, for the checkpoint's
// bf16 weights and for q8/q4 quantized ones: GB/s of weight (and scale) bytes read, time per
// call, and that time over the floor (bytes / plain-read bandwidth).
//   bench_linear [threads]   medians.
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
    const double read_bw = double(n_bytes) / read_s;
    std::printf("%-12s %-5s %8s %10s %8s\n", "shape", "type", "GB/s", "us/call", "x floor");
    for (const auto& s : shapes) {
        // Enough copies of the matrix to exceed the caches, cycled through.
        const size_t mat = size_t(s.out * s.in);
        const int copies = int(std::max<size_t>(1, (size_t(192) << 20) / (mat * 2)));
        std::vector<uint16_t> w(mat * size_t(copies));
        std::mt19937 rng(1);
        for (auto& v : w) v = f32_to_bf16(float(rng() % 1000) / 1000.0f - 0.5f);
        std::vector<TensorView> views;
        for (int c = 0; c < copies; ++c)
            views.push_back(
                TensorView{"w", DType::bf16, {s.out, s.in}, w.data() + mat * size_t(c)});
        std::vector<float> x(size_t(s.in), 0.01f), y(size_t(s.out));
        const backend::ExecContext ctx{backend::KernelSet::fast, &pool};
        auto report = [&](const char* type, size_t bytes, auto&& call) {
            int which = 0;
            const double sec = median_seconds(5 * copies, [&] {
                call(which);
                which = (which + 1) % copies;
            });
            std::printf("%-12s %-5s %8.1f %10.1f %8.2f\n", s.name, type, double(bytes) / sec / 1e9,
                        sec * 1e6, sec / (double(bytes) / read_bw));
        };
        report("bf16", mat * 2, [&](int c) {
            backend::linear(ctx, x.data(), 1, views[size_t(c)], nullptr, y.data());
        });
        for (backend::QuantFormat f : {backend::QuantFormat::q8, backend::QuantFormat::q4}) {
            std::vector<backend::QuantizedWeights> q;
            const auto t0 = std::chrono::steady_clock::now();
            for (const TensorView& v : views) q.push_back(backend::quantize_weights(v, f, &pool));
            const double quantize_s =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            std::printf("%-12s %-5s quantized at %.2f ns per weight (%d threads)\n", s.name,
                        backend::quant_format_name(f), quantize_s * 1e9 / double(mat * copies),
                        threads);
            report(backend::quant_format_name(f), q[0].nbytes(), [&](int c) {
                backend::linear(ctx, x.data(), 1, q[size_t(c)], nullptr, y.data());
            });
        }
    }
    return 0;
}
