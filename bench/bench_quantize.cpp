// The load-time row quantizer alone (quantize_row_cpu, or the portable rule at the generic
// level; no reading, no page faults, no packing): ns per block of 32 for q8 and q4 at every
// SIMD level this CPU has, one thread, on a model-shaped bf16 matrix (an MLP projection, 3072 ×
// 1024) in memory, into one reused buffer. Rounds alternate the levels so that a busy machine
// slows them alike; medians.
//   bench_quantize [rounds]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "backend/cpu/cpu_features.hpp"
#include "backend/cpu/quantize_cpu.hpp"
#include "backend/quantized_weights.hpp"
#include "core/dtype.hpp"

using namespace qwen3tts;
using backend::QuantFormat;

int main(int argc, char** argv) {
    const int rounds = argc > 1 ? std::max(1, std::atoi(argv[1])) : 7;
    const int64_t rows = 3072, cols = 1024;
    std::mt19937 rng(1);
    std::normal_distribution<float> dist(0.0f, 0.02f);
    std::vector<uint16_t> w(size_t(rows * cols));
    for (auto& x : w) x = f32_to_bf16(dist(rng));
    const TensorView view{"mlp.gate_proj.weight", DType::bf16, {rows, cols}, w.data()};
    const double blocks = double(rows * cols / backend::kQuantBlock);
    std::vector<uint8_t> codes(static_cast<size_t>(cols));  // one row's, one code per byte
    std::vector<uint16_t> scales(size_t(cols / backend::kQuantBlock));

    std::vector<cpu::Isa> levels;
    for (cpu::Isa isa : {cpu::Isa::avx512, cpu::Isa::avx2, cpu::Isa::generic})
        if (cpu::set_max_isa(isa)) levels.push_back(isa);
    for (QuantFormat f : {QuantFormat::q8, QuantFormat::q4}) {
        std::vector<std::vector<double>> ns(levels.size());
        for (int r = 0; r < rounds; ++r)
            for (size_t l = 0; l < levels.size(); ++l) {
                cpu::set_max_isa(levels[l]);
                const auto t0 = std::chrono::steady_clock::now();
                for (int64_t row = 0; row < rows; ++row)
                    if (backend::quantize_row_cpu_available())
                        backend::quantize_row_cpu(view, row, f, codes.data(), scales.data());
                    else
                        backend::quantize_row_portable(view, row, f, codes.data(), scales.data());
                const double s =
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
                ns[l].push_back(s * 1e9 / blocks);
            }
        for (size_t l = 0; l < levels.size(); ++l) {
            std::sort(ns[l].begin(), ns[l].end());
            std::printf("%s %-7s %7.1f ns/block (median of %d)\n", backend::quant_format_name(f),
                        cpu::isa_name(levels[l]), ns[l][ns[l].size() / 2], rounds);
        }
    }
    cpu::reset_max_isa();
    return 0;
}
