// Quantized linear layers: the f16 scale conversion against the CPU's own F16C instruction,
// the q8/q4 quantizers' error bounds and packing, the SIMD kernels against the plain-loop
// oracle at every SIMD level, batch invariance (a row's output does not depend on the other
// rows or the threads), the error against the float linear, and bad input.
#include <gtest/gtest.h>
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "backend/cpu/linear_quant_cpu.hpp"
#include "backend/cpu/quantize_cpu.hpp"
#include "backend/ops.hpp"
#include "backend/quantized_weights.hpp"
#include "backend/reference/linear_quant_ref.hpp"
#include "core/dtype.hpp"
#include "ops/isa_levels.hpp"
#include "support/test_support.hpp"

namespace qwen3tts {
namespace {

using backend::QuantFormat;
using backend::QuantizedWeights;

__attribute__((target("f16c"))) uint16_t hardware_f16(float f) {
    return _cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT);
}

TEST(F16, RoundTripOfEveryF16Value) {
    for (uint32_t h = 0; h < 0x10000; ++h) {
        if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff)) continue;  // NaN payloads
        ASSERT_EQ(f32_to_f16(f16_to_f32(uint16_t(h))), h) << std::hex << h;
    }
    EXPECT_EQ(f32_to_f16(std::numeric_limits<float>::quiet_NaN()) & 0x7e00, 0x7e00);
}

TEST(F16, RoundsAsTheCpuDoes) {
    if (cpu::detected_isa() == cpu::Isa::generic) GTEST_SKIP() << "no F16C on this CPU";
    std::mt19937 rng(5);
    std::uniform_int_distribution<uint32_t> bits;
    int checked = 0;
    for (int i = 0; i < 2000000; ++i) {
        uint32_t b = bits(rng);
        // Spread over the f16 range and around it: exponents 2^-30 .. 2^20.
        b = (b & 0x807fffffu) | ((97u + (b >> 23) % 51u) << 23);
        float f;
        std::memcpy(&f, &b, sizeof f);
        ASSERT_EQ(f32_to_f16(f), hardware_f16(f)) << f;
        ++checked;
    }
    for (float f : {65504.0f, 65519.0f, 65520.0f, 1e9f, 5.96e-8f, 2.98e-8f, 2.99e-8f, 0.0f, -0.0f})
        EXPECT_EQ(f32_to_f16(f), hardware_f16(f)) << f;
    EXPECT_EQ(checked, 2000000);
}

std::vector<uint16_t> random_bf16(std::mt19937& rng, int64_t count, float sigma) {
    std::normal_distribution<float> dist(0.0f, sigma);
    std::vector<uint16_t> v(static_cast<size_t>(count));
    for (auto& x : v) x = f32_to_bf16(dist(rng));
    return v;
}

TEST(Quantize, Q8ErrorIsAtMostHalfAStep) {
    std::mt19937 rng(1);
    const int64_t rows = 7, cols = 128;
    const auto w = random_bf16(rng, rows * cols, 0.05f);
    const TensorView view{"layer.weight", DType::bf16, {rows, cols}, w.data()};
    const QuantizedWeights q = backend::quantize_weights(view, QuantFormat::q8, nullptr);
    ASSERT_EQ(q.codes.size(), size_t(16 * cols));  // one group of 16 rows, 9 of them padding
    ASSERT_EQ(q.scales.size(), size_t(16 * cols / 32));
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c) {
            const float scale = f16_to_f32(q.scale_f16(r, c / 32));
            const float orig = bf16_to_f32(w[size_t(r * cols + c)]);
            EXPECT_GE(q.code(r, c), 1);
            EXPECT_LE(std::fabs(q.value(r, c) - orig), 0.5f * scale * 1.001f) << r << "," << c;
        }
}

// The squared error of block b of row r as q represents it, and as the plain max-magnitude
// rule would (step = the value of largest magnitude / -8, that value on the code 0).
double block_error(const QuantizedWeights& q, const std::vector<uint16_t>& w, int64_t r,
                   int64_t b) {
    double e = 0;
    for (int64_t c = b * 32; c < b * 32 + 32; ++c) {
        const double d = double(q.value(r, c)) - bf16_to_f32(w[size_t(r * q.cols + c)]);
        e += d * d;
    }
    return e;
}

double max_magnitude_rule_error(const std::vector<uint16_t>& w, int64_t cols, int64_t r,
                                int64_t b) {
    float extreme = 0;
    for (int64_t c = b * 32; c < b * 32 + 32; ++c) {
        const float x = bf16_to_f32(w[size_t(r * cols + c)]);
        if (std::fabs(x) > std::fabs(extreme) || (x == -extreme && x > 0)) extreme = x;
    }
    const float scale = f16_to_f32(f32_to_f16(extreme / -8.0f));
    double e = 0;
    for (int64_t c = b * 32; c < b * 32 + 32; ++c) {
        const float x = bf16_to_f32(w[size_t(r * cols + c)]);
        const int code = std::clamp(int(std::lrint(x / scale)), -8, 7);
        e += (double(scale) * code - x) * (double(scale) * code - x);
    }
    return e;
}

TEST(Quantize, Q4FitsBetterThanTheMaxMagnitudeRule) {
    std::mt19937 rng(2);
    const int64_t rows = 64, cols = 192;
    const auto w = random_bf16(rng, rows * cols, 0.05f);
    const TensorView view{"layer.weight", DType::bf16, {rows, cols}, w.data()};
    const QuantizedWeights q = backend::quantize_weights(view, QuantFormat::q4, nullptr);
    // The candidates include the max-magnitude rule's step, and the stored scale is the least-
    // squares one of the chosen codes, so no block is worse than that rule (up to the f16
    // rounding of the scale); over Gaussian weights the error is about 10 % lower (5 % in RMS).
    double total = 0, total_rule = 0;
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t b = 0; b < cols / 32; ++b) {
            const double e = block_error(q, w, r, b),
                         rule = max_magnitude_rule_error(w, cols, r, b);
            EXPECT_LE(e, rule * 1.002) << r << "," << b;
            total += e;
            total_rule += rule;
        }
    EXPECT_LT(total, 0.92 * total_rule);
    EXPECT_GT(total, 0.80 * total_rule);
}

// The storage order of quantized_weights.hpp, byte by byte: rows in groups of 16 (lane = row
// mod 16, 4 bytes each), blocks one after the other, chunks of 64 bytes; q8 chunk t holds
// columns 4t..4t+3 of the block, q4 chunk t columns 8t..8t+3 (low nibbles) and 8t+4..8t+7
// (high nibbles); scales per group and block, 16 rows. The last group's padding rows are zero.
// value() decoding the wrong byte would also fail the error bounds above.
TEST(Quantize, CodesAndScalesAreInterleavedInGroupsOfSixteenRows) {
    std::mt19937 rng(4);
    const int64_t rows = 21, cols = 96;  // a full group, a padded one, 3 blocks
    const auto w = random_bf16(rng, rows * cols, 0.05f);
    const TensorView view{"w", DType::bf16, {rows, cols}, w.data()};
    for (QuantFormat f : {QuantFormat::q8, QuantFormat::q4}) {
        const QuantizedWeights q = backend::quantize_weights(view, f, nullptr);
        const size_t block_bytes = f == QuantFormat::q8 ? 512 : 256;
        ASSERT_EQ(q.codes.size(), 2 * 3 * block_bytes);
        ASSERT_EQ(q.scales.size(), size_t(2 * 3 * 16));
        const int64_t r = 17, b = 2;  // group 1, lane 1
        const uint8_t* block = q.codes.data() + 3 * block_bytes + 2 * block_bytes + 4;
        EXPECT_EQ(q.scales[(3 + b) * 16 + 1], q.scale_f16(r, b));
        for (int64_t j = 0; j < 32; ++j) {
            const int got = f == QuantFormat::q8 ? block[j / 4 * 64 + j % 4]
                            : j % 8 < 4          ? block[j / 8 * 64 + j % 4] & 0xf
                                                 : block[j / 8 * 64 + j % 4] >> 4;
            EXPECT_EQ(got, q.code(r, b * 32 + j)) << quant_format_name(f) << " column " << j;
            const float scale = std::fabs(f16_to_f32(q.scale_f16(r, b)));
            EXPECT_LE(std::fabs(q.value(r, b * 32 + j) - bf16_to_f32(w[size_t(r * cols + 64 + j)])),
                      scale * 1.5f);
        }
        for (int64_t pad = rows; pad < 32; ++pad)
            for (int64_t c = 0; c < cols; ++c) {
                ASSERT_EQ(q.code(pad, c), 0) << quant_format_name(f) << " padding row " << pad;
                ASSERT_EQ(q.scale_f16(pad, c / 32), 0) << quant_format_name(f);
            }
    }
}

// The SIMD quantizers give the portable one's codes and scales, for every float dtype, at
// every level, including ties between +m and -m and all-zero blocks, on the models' widths
// (1024, 2048, 3072: whole groups of the SIMD quantizers' 16 or 8 blocks) and others (8 and 33
// blocks: a partial group).
class QuantizeRow : public testing_isa::AtLevel {};

void expect_simd_equals_portable(int64_t rows, int64_t cols) {
    std::mt19937 rng(6);
    std::vector<float> f32(static_cast<size_t>(rows * cols));
    for (int64_t r = 0; r < rows; ++r) {
        // Rows of different scales, and some with a heavy tail (q4's candidates compete).
        std::normal_distribution<float> dist(0.0f, 0.01f * float(1 + r % 7));
        for (int64_t c = 0; c < cols; ++c) {
            float x = dist(rng);
            if (r % 3 == 0 && c % 29 == 0) x *= 6;
            f32[size_t(r * cols + c)] = bf16_to_f32(f32_to_bf16(x));
        }
    }
    f32[3] = 0.5f, f32[7] = -0.5f;                        // a tie in block 0
    std::fill(f32.begin() + 64, f32.begin() + 96, 0.0f);  // an all-zero block
    std::vector<uint16_t> bf16(f32.size()), f16(f32.size());
    for (size_t i = 0; i < f32.size(); ++i) {
        bf16[i] = f32_to_bf16(f32[i]);
        f16[i] = f32_to_f16(f32[i]);
    }
    const TensorView views[3] = {{"w", DType::f32, {rows, cols}, f32.data()},
                                 {"w", DType::bf16, {rows, cols}, bf16.data()},
                                 {"w", DType::f16, {rows, cols}, f16.data()}};
    for (const TensorView& v : views)
        for (QuantFormat f : {QuantFormat::q8, QuantFormat::q4})
            for (int64_t r = 0; r < rows; ++r) {
                std::vector<uint8_t> portable(static_cast<size_t>(cols)),
                    fast(static_cast<size_t>(cols));
                std::vector<uint16_t> ps(size_t(cols / 32)), fs(size_t(cols / 32));
                backend::quantize_row_portable(v, r, f, portable.data(), ps.data());
                if (backend::quantize_row_cpu_available())
                    backend::quantize_row_cpu(v, r, f, fast.data(), fs.data());
                else
                    backend::quantize_row_portable(v, r, f, fast.data(), fs.data());
                ASSERT_EQ(portable, fast) << dtype_name(v.dtype) << " " << quant_format_name(f)
                                          << " " << cols << " columns, row " << r;
                ASSERT_EQ(ps, fs) << dtype_name(v.dtype) << " " << quant_format_name(f) << " "
                                  << cols << " columns, row " << r;
                if (r == 0) {
                    if (f == QuantFormat::q8) {
                        EXPECT_EQ(portable[3], 255) << "the tie goes to +0.5";
                    }
                    EXPECT_EQ(ps[2], 0) << "an all-zero block has the scale 0";
                }
            }
}

TEST_P(QuantizeRow, SimdEqualsPortable) {
    for (const int64_t cols : {256, 1056})
        ASSERT_NO_FATAL_FAILURE(expect_simd_equals_portable(256, cols));
    for (const int64_t cols : {1024, 2048, 3072})
        ASSERT_NO_FATAL_FAILURE(expect_simd_equals_portable(48, cols));
}

// Whole matrices (row quantizers, the interleaving with a padded last group, threads) come out the
// same at every level as at the generic one.
TEST_P(QuantizeRow, WholeMatrixEqualsTheGenericLevel) {
    std::mt19937 rng(8);
    ThreadPool pool(2);
    for (const int64_t cols : {96, 1024})
        for (QuantFormat f : {QuantFormat::q8, QuantFormat::q4}) {
            const auto w = random_bf16(rng, 40 * cols, 0.05f);
            const TensorView v{"w", DType::bf16, {40, cols}, w.data()};
            const QuantizedWeights fast = backend::quantize_weights(v, f, &pool);
            cpu::set_max_isa(cpu::Isa::generic);
            const QuantizedWeights plain = backend::quantize_weights(v, f, nullptr);
            cpu::set_max_isa(GetParam());
            const std::vector<uint8_t> a(fast.codes.data(), fast.codes.data() + fast.codes.size()),
                b(plain.codes.data(), plain.codes.data() + plain.codes.size());
            const std::vector<uint16_t> sa(fast.scales.data(),
                                           fast.scales.data() + fast.scales.size()),
                sb(plain.scales.data(), plain.scales.data() + plain.scales.size());
            EXPECT_EQ(a, b) << quant_format_name(f) << " " << cols;
            EXPECT_EQ(sa, sb) << quant_format_name(f) << " " << cols;
        }
}

INSTANTIATE_TEST_SUITE_P(Isa, QuantizeRow, testing_isa::kAllLevels, testing_isa::level_test_name);

TEST(Quantize, RefusesWhatItCannotRepresent) {
    std::vector<float> w(2 * 64, 0.5f);
    const TensorView odd{"odd.weight", DType::f32, {8, 16}, w.data()};
    EXPECT_EQ(testing::error_of([&] { backend::quantize_weights(odd, QuantFormat::q8, nullptr); }),
              "cannot quantize odd.weight to q8: expected a 2-D float matrix with a multiple of "
              "32 columns, got F32 [8, 16]");
    w[70] = std::numeric_limits<float>::infinity();
    const TensorView inf{"inf.weight", DType::f32, {2, 64}, w.data()};
    EXPECT_EQ(testing::error_of([&] { backend::quantize_weights(inf, QuantFormat::q4, nullptr); }),
              "cannot quantize inf.weight: row 1 has a non-finite weight");
}

struct Case {
    QuantFormat format;
    int64_t n, out, in;
};

class QuantLinear : public ::testing::TestWithParam<std::tuple<cpu::Isa, Case>> {
  protected:
    void SetUp() override { testing_isa::enter_level(std::get<0>(GetParam())); }
    void TearDown() override {
        cpu::reset_max_isa();
        cpu::allow_avx_vnni(true);
    }
};

TEST_P(QuantLinear, FastMatchesTheOracleAndIsBatchInvariant) {
    const Case c = std::get<1>(GetParam());
    std::mt19937 rng(42);
    std::normal_distribution<float> dist(0.0f, 1.0f);
    const auto w = random_bf16(rng, c.out * c.in, 1.0f / std::sqrt(float(c.in)));
    const QuantizedWeights q = backend::quantize_weights(
        TensorView{"w", DType::bf16, {c.out, c.in}, w.data()}, c.format, nullptr);
    std::vector<float> x(size_t(c.n * c.in)), bias(size_t(c.out));
    for (auto& v : x) v = dist(rng);
    for (auto& v : bias) v = dist(rng);
    ThreadPool pool(2);
    std::vector<float> ref(size_t(c.n * c.out)), fast(ref.size()), solo(size_t(c.out));
    backend::linear({backend::KernelSet::reference, nullptr}, x.data(), c.n, q, bias.data(),
                    ref.data());
    backend::linear({backend::KernelSet::fast, &pool}, x.data(), c.n, q, bias.data(), fast.data());
    double max_ref = 0, max_diff = 0;
    for (size_t i = 0; i < ref.size(); ++i) {
        max_ref = std::max(max_ref, double(std::fabs(ref[i])));
        max_diff = std::max(max_diff, double(std::fabs(ref[i] - fast[i])));
    }
    EXPECT_LE(max_diff, 1e-5 * std::max(1.0, max_ref)) << backend::linear_quant_cpu_kernel();
    // Each row alone, single-threaded: bit for bit what it was in the batch.
    for (int64_t i = 0; i < c.n; ++i) {
        backend::linear({backend::KernelSet::fast, nullptr}, x.data() + i * c.in, 1, q, bias.data(),
                        solo.data());
        ASSERT_EQ(0, std::memcmp(solo.data(), fast.data() + i * c.out, solo.size() * 4))
            << "row " << i << " of " << c.n;
    }
    // The 8-lane kernels (AVX2, and AVX2 with AVX-VNNI where the CPU has it) do each lane's
    // arithmetic in the VNNI kernel's order: every kernel this CPU can run gives the same bits.
    if (std::get<0>(GetParam()) == cpu::Isa::generic) return;
    const std::string level_kernel = backend::linear_quant_cpu_kernel();
    cpu::set_max_isa(cpu::Isa::avx2);
    for (bool vnni : {true, false}) {
        cpu::allow_avx_vnni(vnni);
        const std::string kernel = backend::linear_quant_cpu_kernel();
        EXPECT_EQ(kernel, vnni && cpu::has_avx_vnni() ? "avx2-vnni" : "avx2");
        std::vector<float> lanes8(ref.size());
        backend::linear({backend::KernelSet::fast, &pool}, x.data(), c.n, q, bias.data(),
                        lanes8.data());
        EXPECT_EQ(0, std::memcmp(lanes8.data(), fast.data(), lanes8.size() * 4))
            << kernel << " against " << level_kernel;
    }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, QuantLinear,
    ::testing::Combine(
        testing_isa::kAllLevels,
        ::testing::Values(Case{QuantFormat::q8, 1, 1024, 1024},
                          Case{QuantFormat::q4, 1, 1024, 1024}, Case{QuantFormat::q8, 3, 67, 192},
                          Case{QuantFormat::q4, 3, 67, 192}, Case{QuantFormat::q8, 5, 33, 64},
                          Case{QuantFormat::q4, 2, 300, 3072}, Case{QuantFormat::q8, 1, 2048, 1088},
                          Case{QuantFormat::q8, 3, 40, 32}, Case{QuantFormat::q4, 3, 40, 32},
                          Case{QuantFormat::q4, 2, 19, 1120}, Case{QuantFormat::q8, 2, 19, 1120},
                          // register tiles of 8, 4, 2 and 1 activation rows (up to 16 streams)
                          Case{QuantFormat::q8, 7, 130, 1024}, Case{QuantFormat::q4, 16, 64, 3072},
                          Case{QuantFormat::q4, 11, 37, 96}, Case{QuantFormat::q8, 16, 33, 160},
                          Case{QuantFormat::q4, 15, 48, 2048}, Case{QuantFormat::q8, 15, 17, 64},
                          Case{QuantFormat::q4, 5, 29, 736})),
    [](const ::testing::TestParamInfo<std::tuple<cpu::Isa, Case>>& p) {
        const Case& c = std::get<1>(p.param);
        return std::string(cpu::isa_name(std::get<0>(p.param))) + "_" +
               backend::quant_format_name(c.format) + "_" + std::to_string(c.n) + "x" +
               std::to_string(c.out) + "x" + std::to_string(c.in);
    });

// The quantized linear against the float one on Gaussian weights and inputs: the relative RMS
// error expected from the step sizes (q8: weights and activations ≈ 0.5 % each; q4 weights
// ≈ 8 %), with headroom; a wrong scale or offset is off by far more.
TEST(QuantLinearAccuracy, ErrorAgainstTheFloatLinearIsTheQuantizationError) {
    std::mt19937 rng(9);
    std::normal_distribution<float> dist(0.0f, 1.0f);
    const int64_t out = 256, in = 1024;
    const auto w = random_bf16(rng, out * in, 1.0f / 32.0f);
    const TensorView view{"w", DType::bf16, {out, in}, w.data()};
    std::vector<float> x(static_cast<size_t>(in)), exact(static_cast<size_t>(out)),
        got(static_cast<size_t>(out));
    for (auto& v : x) v = dist(rng);
    backend::linear({backend::KernelSet::reference, nullptr}, x.data(), 1, view, nullptr,
                    exact.data());
    for (QuantFormat f : {QuantFormat::q8, QuantFormat::q4}) {
        const QuantizedWeights q = backend::quantize_weights(view, f, nullptr);
        backend::linear({backend::KernelSet::fast, nullptr}, x.data(), 1, q, nullptr, got.data());
        double err = 0, norm = 0;
        for (int64_t r = 0; r < out; ++r) {
            err += double(got[size_t(r)] - exact[size_t(r)]) * (got[size_t(r)] - exact[size_t(r)]);
            norm += double(exact[size_t(r)]) * exact[size_t(r)];
        }
        const double rel = std::sqrt(err / norm);
        if (f == QuantFormat::q8) {
            EXPECT_LT(rel, 0.015) << "q8";
            EXPECT_GT(rel, 0.001) << "q8 cannot be this exact: is it quantizing at all?";
        } else {
            EXPECT_LT(rel, 0.12) << "q4";
            EXPECT_GT(rel, 0.03) << "q4 cannot be this exact";
        }
    }
}

// A group of quantized layers sharing one input (q/k/v, gate/up) in one parallel region: the
// input is quantized once, and each output equals the layer's own linear bit for bit, at every
// SIMD level, for both formats and a group mixing them, whatever the thread count. 3 rows and
// 9 (a packed tile of 8 at the AVX-512 level, which a mixed group does without).
class QuantLinearGroup : public ::testing::TestWithParam<std::tuple<cpu::Isa, int64_t>> {
  protected:
    void SetUp() override { testing_isa::enter_level(std::get<0>(GetParam())); }
    void TearDown() override { cpu::reset_max_isa(); }
};

TEST_P(QuantLinearGroup, EqualsSeparateLinears) {
    std::mt19937 rng(8);
    std::normal_distribution<float> dist(0.0f, 1.0f);
    const int64_t n = std::get<1>(GetParam()), in = 512, outs[3] = {1024, 512, 512};
    std::vector<std::vector<uint16_t>> storage;
    for (int64_t out : outs) storage.push_back(random_bf16(rng, out * in, 0.1f));
    std::vector<float> x(static_cast<size_t>(n * in));
    for (auto& v : x) v = dist(rng);
    const QuantFormat mixed[3] = {QuantFormat::q8, QuantFormat::q4, QuantFormat::q8};
    for (int setting = 0; setting < 3; ++setting) {
        std::vector<backend::LinearWeights> layers;
        for (int j = 0; j < 3; ++j)
            layers.emplace_back(
                TensorView{"w", DType::bf16, {outs[j], in}, storage[size_t(j)].data()},
                setting == 2   ? mixed[j]
                : setting == 0 ? QuantFormat::q8
                               : QuantFormat::q4,
                nullptr);
        std::vector<std::vector<float>> separate(3);
        for (int j = 0; j < 3; ++j) {
            separate[size_t(j)].resize(size_t(n * outs[j]));
            backend::linear({backend::KernelSet::fast, nullptr}, x.data(), n, layers[size_t(j)],
                            nullptr, separate[size_t(j)].data());
        }
        for (int threads : {1, 2, 3}) {
            ThreadPool pool(threads);
            std::vector<std::vector<float>> group(3);
            const backend::LinearWeights* ws[3];
            float* ys[3];
            for (int j = 0; j < 3; ++j) {
                group[size_t(j)].assign(size_t(n * outs[j]), -1.0f);
                ws[j] = &layers[size_t(j)];
                ys[j] = group[size_t(j)].data();
            }
            backend::linear_group({backend::KernelSet::fast, &pool}, x.data(), n, ws, ys, 3);
            for (int j = 0; j < 3; ++j)
                EXPECT_EQ(group[size_t(j)], separate[size_t(j)])
                    << (setting == 2   ? "mixed"
                        : setting == 0 ? "q8"
                                       : "q4")
                    << " group, matrix " << j << ", " << threads << " threads";
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Isa, QuantLinearGroup,
                         ::testing::Combine(testing_isa::kAllLevels, ::testing::Values(3, 9)),
                         [](const ::testing::TestParamInfo<std::tuple<cpu::Isa, int64_t>>& p) {
                             return std::string(cpu::isa_name(std::get<0>(p.param))) + "_" +
                                    std::to_string(std::get<1>(p.param)) + "_rows";
                         });

TEST(QuantLinearAccuracy, NonFiniteInputGivesNaNNotAFiniteGuess) {
    std::mt19937 rng(3);
    const auto w = random_bf16(rng, 4 * 64, 0.1f);
    const QuantizedWeights q = backend::quantize_weights(
        TensorView{"w", DType::bf16, {4, 64}, w.data()}, QuantFormat::q8, nullptr);
    std::vector<float> x(64, 1.0f), y(4);
    x[40] = std::numeric_limits<float>::infinity();
    backend::linear({backend::KernelSet::fast, nullptr}, x.data(), 1, q, nullptr, y.data());
    for (float v : y) EXPECT_TRUE(std::isnan(v)) << v;
}

}  // namespace
}  // namespace qwen3tts

namespace qwen3tts {
namespace {

// The SIMD activation quantizer of the fast linears gives exactly the portable rule's codes,
// scales and sums, at every level: Gaussian rows, an all-zero block, a block with an infinity,
// one with a NaN, ties at .5, and a block of subnormals (whose 127 / max overflows).
class QuantizeActivations : public testing_isa::AtLevel {};

TEST_P(QuantizeActivations, EqualsThePortableRule) {
    std::mt19937 rng(12);
    std::normal_distribution<float> dist(0.0f, 3.0f);
    const int64_t n = 3, cols = 1024;
    std::vector<float> x(size_t(n * cols));
    for (auto& v : x) v = dist(rng);
    std::fill_n(x.begin() + 32, 32, 0.0f);
    x[70] = std::numeric_limits<float>::infinity();
    x[100] = std::numeric_limits<float>::quiet_NaN();
    for (int j = 0; j < 32; ++j) x[size_t(128 + j)] = float(j - 16) * 0.5f + 0.25f;  // ties
    x[159] = 127.0f;
    for (int j = 0; j < 32; ++j) x[size_t(192 + j)] = float(j) * 1e-40f;  // subnormals
    backend::QuantizedActivations portable, fast;
    portable.quantize(x.data(), n, cols);
    backend::quantize_activations_cpu(x.data(), n, cols, fast);
    ASSERT_EQ(fast.rows, n);
    ASSERT_EQ(fast.cols, cols);
    EXPECT_EQ(fast.q, portable.q);
    ASSERT_EQ(fast.scales.size(), portable.scales.size());
    for (size_t b = 0; b < fast.scales.size(); ++b) {
        if (std::isnan(portable.scales[b])) {
            EXPECT_TRUE(std::isnan(fast.scales[b])) << b;
            EXPECT_EQ(fast.sums[b], 0) << b;
            continue;
        }
        EXPECT_EQ(fast.scales[b], portable.scales[b]) << "block " << b;
        EXPECT_EQ(fast.sums[b], portable.sums[b]) << "block " << b;
    }
}

INSTANTIATE_TEST_SUITE_P(Isa, QuantizeActivations, testing_isa::kAllLevels,
                         testing_isa::level_test_name);

}  // namespace
}  // namespace qwen3tts
