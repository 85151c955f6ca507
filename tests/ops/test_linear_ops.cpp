// The SIMD linear kernels against the plain-loop reference on random inputs, for every weight
// dtype, at every SIMD level (skipped where the CPU lacks it), and for shapes that exercise row
// blocks, tails and the thread split.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <tuple>

#include "backend/cpu/linear_cpu.hpp"
#include "backend/ops.hpp"
#include "core/dtype.hpp"
#include "ops/isa_levels.hpp"

namespace qwen3tts {
namespace {

struct Case {
    DType dtype;
    int64_t n, out, in;
};

class LinearOps : public ::testing::TestWithParam<std::tuple<cpu::Isa, Case>> {
  protected:
    void SetUp() override { testing_isa::enter_level(std::get<0>(GetParam())); }
    void TearDown() override { cpu::reset_max_isa(); }
};

TEST_P(LinearOps, FastMatchesReference) {
    const Case c = std::get<1>(GetParam());
    ASSERT_STREQ(backend::linear_cpu_isa(), cpu::isa_name(std::get<0>(GetParam())));
    std::mt19937 rng(42);
    std::normal_distribution<float> dist(0.0f, 1.0f);
    std::vector<float> x(size_t(c.n * c.in)), bias(size_t(c.out));
    for (auto& v : x) v = dist(rng);
    for (auto& v : bias) v = dist(rng);
    std::vector<uint8_t> storage(size_t(c.out * c.in) * dtype_size(c.dtype));
    for (int64_t i = 0; i < c.out * c.in; ++i) {
        const float w = dist(rng) / std::sqrt(float(c.in));
        if (c.dtype == DType::f32)
            reinterpret_cast<float*>(storage.data())[i] = w;
        else if (c.dtype == DType::bf16)
            reinterpret_cast<uint16_t*>(storage.data())[i] = f32_to_bf16(w);
        else {
            // f16 by way of a round trip through the converter's inverse on representable values
            const uint16_t h = uint16_t(0x3c00 + (int(std::fabs(w) * 1000) % 0x3ff)) |
                               uint16_t(w < 0 ? 0x8000 : 0);
            reinterpret_cast<uint16_t*>(storage.data())[i] = h;
        }
    }
    TensorView w{"w", c.dtype, {c.out, c.in}, storage.data()};
    ThreadPool pool(2);
    std::vector<float> ref(size_t(c.n * c.out)), fast(size_t(c.n * c.out));
    const std::vector<const float*> biases{nullptr, bias.data()};
    for (const float* b : biases) {
        backend::linear({backend::KernelSet::reference, nullptr}, x.data(), c.n, w, b, ref.data());
        backend::linear({backend::KernelSet::fast, &pool}, x.data(), c.n, w, b, fast.data());
        double max_ref = 0, max_diff = 0;
        for (size_t i = 0; i < ref.size(); ++i) {
            max_ref = std::max(max_ref, double(std::fabs(ref[i])));
            max_diff = std::max(max_diff, double(std::fabs(ref[i] - fast[i])));
        }
        EXPECT_LE(max_diff, 1e-5 * std::max(1.0, max_ref))
            << dtype_name(c.dtype) << " n=" << c.n << " out=" << c.out << " in=" << c.in
            << " isa=" << backend::linear_cpu_isa();
    }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, LinearOps,
    ::testing::Combine(testing_isa::kAllLevels,
                       ::testing::Values(Case{DType::bf16, 1, 1024, 1024},
                                         Case{DType::bf16, 1, 3072, 1024},
                                         Case{DType::bf16, 7, 67, 256}, Case{DType::bf16, 2, 5, 48},
                                         Case{DType::f16, 1, 130, 512}, Case{DType::f16, 3, 33, 64},
                                         Case{DType::f32, 1, 2048, 16}, Case{DType::f32, 5, 9, 32},
                                         Case{DType::f32, 1, 3, 7}, Case{DType::bf16, 1, 3, 20},
                                         // from 12 rows: 3x8 tiles, then 4-row ones for the rest
                                         Case{DType::bf16, 21, 52, 128},
                                         Case{DType::f16, 13, 40, 64},
                                         Case{DType::f32, 16, 30, 32})),
    [](const ::testing::TestParamInfo<std::tuple<cpu::Isa, Case>>& p) {
        const Case& c = std::get<1>(p.param);
        return std::string(cpu::isa_name(std::get<0>(p.param))) + "_" + dtype_name(c.dtype) + "_" +
               std::to_string(c.n) + "x" + std::to_string(c.out) + "x" + std::to_string(c.in);
    });

TEST(Bf16, RoundTripIsExactAndRoundsToNearestEven) {
    EXPECT_EQ(bf16_to_f32(f32_to_bf16(1.5f)), 1.5f);
    EXPECT_EQ(f32_to_bf16(1.0f + 1.0f / 256.0f), f32_to_bf16(1.0f));  // tie → even
    EXPECT_EQ(bf16_to_f32(f32_to_bf16(-2.0f)), -2.0f);
    EXPECT_EQ(f16_to_f32(0x3c00), 1.0f);
    EXPECT_EQ(f16_to_f32(0xc000), -2.0f);
    EXPECT_EQ(f16_to_f32(0x0001), std::ldexp(1.0f, -24));  // smallest subnormal
}

}  // namespace
}  // namespace qwen3tts

namespace qwen3tts {
namespace {

using LinearGroup = testing_isa::AtLevel;

TEST_P(LinearGroup, EqualsSeparateReferenceLinears) {
    std::mt19937 rng(7);
    std::normal_distribution<float> dist(0.0f, 1.0f);
    const int64_t n = 3, in = 64, outs[3] = {40, 16, 37};
    std::vector<float> x(size_t(n * in));
    for (auto& v : x) v = dist(rng);
    std::vector<std::vector<uint16_t>> storage(3);
    std::vector<TensorView> views;
    for (int j = 0; j < 3; ++j) {
        storage[size_t(j)].resize(size_t(outs[j] * in));
        for (auto& v : storage[size_t(j)]) v = f32_to_bf16(dist(rng) * 0.1f);
        views.push_back(TensorView{"w", DType::bf16, {outs[j], in}, storage[size_t(j)].data()});
    }
    ThreadPool pool(2);
    std::vector<std::vector<float>> fast(3), ref(3);
    const TensorView* ws[3] = {&views[0], &views[1], &views[2]};
    float* ys[3];
    for (int j = 0; j < 3; ++j) {
        fast[size_t(j)].resize(size_t(n * outs[j]));
        ref[size_t(j)].resize(size_t(n * outs[j]));
        ys[j] = fast[size_t(j)].data();
        backend::linear({backend::KernelSet::reference, nullptr}, x.data(), n, views[size_t(j)],
                        nullptr, ref[size_t(j)].data());
    }
    backend::linear_group({backend::KernelSet::fast, &pool}, x.data(), n, ws, ys, 3);
    for (int j = 0; j < 3; ++j)
        for (size_t i = 0; i < ref[size_t(j)].size(); ++i)
            EXPECT_NEAR(fast[size_t(j)][i], ref[size_t(j)][i], 1e-4) << j << " " << i;
}

INSTANTIATE_TEST_SUITE_P(Isa, LinearGroup, testing_isa::kAllLevels, testing_isa::level_test_name);

}  // namespace
}  // namespace qwen3tts

namespace qwen3tts {
namespace {

// The sum of one output as the SIMD kernels form it: `lanes` accumulators, lane l summing the
// products of columns k ≡ l (mod lanes) in order with a fused multiply-add, then the kernels'
// horizontal sum (AVX-512: halves, quarters, pairs; AVX2: hsum256), plus the bias.
float lane_ordered_dot(const float* x, const uint16_t* w, int64_t in, int lanes, float bias) {
    float acc[16] = {};
    for (int64_t k = 0; k < in; k += lanes)
        for (int l = 0; l < lanes; ++l) acc[l] = std::fma(bf16_to_f32(w[k + l]), x[k + l], acc[l]);
    float t[8];
    if (lanes == 16) {
        for (int l = 0; l < 8; ++l) t[l] = acc[l + 8] + acc[l];
    } else {
        for (int l = 0; l < 8; ++l) t[l] = acc[l];
    }
    const float q[4] = {t[4] + t[0], t[5] + t[1], t[6] + t[2], t[7] + t[3]};
    return (q[0] + q[2]) + (q[1] + q[3]) + bias;
}

// The bf16 kernels (the default, exact path) give every output bit for bit the value of the
// lane-ordered sum above, whatever the number of input rows n (register tiles of 3x8, 4x4, 4x2,
// 4x1) and the thread count: golden results cannot move when streams are batched. From n = 12
// the 3x8 tiles run where eight input rows fit in L1 (256 columns on any CPU, 1024 with a
// 48 KiB L1, never 2048), tiles of four rows elsewhere.
class LinearBf16Order : public testing_isa::AtLevel {};

TEST_P(LinearBf16Order, EveryRowIsTheLaneOrderedSumWhateverNAndThreads) {
    if (GetParam() == cpu::Isa::generic) GTEST_SKIP() << "the reference loop has its own order";
    const int lanes = GetParam() == cpu::Isa::avx512 ? 16 : 8;
    std::mt19937 rng(5);
    std::normal_distribution<float> dist(0.0f, 1.0f);
    // 37 blocks of 4 rows, a tail of 2
    const int64_t out = 150;
    std::vector<float> bias(static_cast<size_t>(out));
    for (auto& v : bias) v = dist(rng);
    for (const int64_t in : {256, 1024, 2048})
        for (int64_t n : {1, 2, 3, 4, 7, 8, 11, 16, 19}) {
            std::vector<uint16_t> w(size_t(out * in));
            for (auto& v : w) v = f32_to_bf16(dist(rng) / 32.0f);
            const TensorView view{"w", DType::bf16, {out, in}, w.data()};
            std::vector<float> x(size_t(n * in));
            for (auto& v : x) v = dist(rng);
            for (int threads : {1, 2, 3}) {
                ThreadPool pool(threads);
                for (const float* b :
                     {static_cast<const float*>(nullptr), static_cast<const float*>(bias.data())}) {
                    std::vector<float> y(size_t(n * out));
                    backend::linear({backend::KernelSet::fast, &pool}, x.data(), n, view, b,
                                    y.data());
                    for (int64_t i = 0; i < n; ++i)
                        for (int64_t r = 0; r < out; ++r)
                            ASSERT_EQ(y[size_t(i * out + r)],
                                      lane_ordered_dot(x.data() + i * in, w.data() + r * in, in,
                                                       lanes, b ? b[r] : 0.0f))
                                << in << " columns, n " << n << " row " << i << " out " << r << ", "
                                << threads << " threads";
                }
            }
        }
}

INSTANTIATE_TEST_SUITE_P(Isa, LinearBf16Order, testing_isa::kAllLevels,
                         testing_isa::level_test_name);

}  // namespace
}  // namespace qwen3tts

namespace qwen3tts {
namespace {

// The opt-in bf16-activation path (vdpbf16ps on the raw weights): the exact sum of products of
// the bf16-rounded inputs with the weights up to f32 summation order, every row bit for bit the
// same whatever n and the thread count, the exact path where it does not apply.
TEST(LinearBf16Activations, IsTheProductOfRoundedInputsAndBatchInvariant) {
    if (!__builtin_cpu_supports("avx512bf16") || cpu::active_isa() != cpu::Isa::avx512)
        GTEST_SKIP() << "no AVX512_BF16 on this CPU";
    std::mt19937 rng(9);
    std::normal_distribution<float> dist(0.0f, 1.0f);
    const int64_t out = 262, in = 1024;  // 65 blocks of 4 rows and a tail of 2
    std::vector<uint16_t> w(size_t(out * in));
    for (auto& v : w) v = f32_to_bf16(dist(rng) / 32.0f);
    std::vector<float> bias(static_cast<size_t>(out));
    for (auto& v : bias) v = dist(rng);
    const TensorView view{"w", DType::bf16, {out, in}, w.data()};
    const int64_t n = 7;
    std::vector<float> x(size_t(n * in));
    for (auto& v : x) v = dist(rng);
    ThreadPool pool(2);
    const backend::ExecContext approx{backend::KernelSet::fast, &pool, true};
    std::vector<float> y(size_t(n * out)), exact(y.size()), solo(static_cast<size_t>(out));
    backend::linear(approx, x.data(), n, view, bias.data(), y.data());
    backend::linear({backend::KernelSet::fast, &pool}, x.data(), n, view, bias.data(),
                    exact.data());
    double err2 = 0, ref2 = 0;
    for (int64_t i = 0; i < n; ++i)
        for (int64_t r = 0; r < out; ++r) {
            double s = bias[size_t(r)];
            for (int64_t k = 0; k < in; ++k)
                s += double(bf16_to_f32(w[size_t(r * in + k)])) *
                     bf16_to_f32(f32_to_bf16(x[size_t(i * in + k)]));
            EXPECT_NEAR(y[size_t(i * out + r)], s, 2e-5 * std::max(1.0, std::fabs(s)));
            const double e = double(y[size_t(i * out + r)]) - exact[size_t(i * out + r)];
            err2 += e * e;
            ref2 += double(exact[size_t(i * out + r)]) * exact[size_t(i * out + r)];
        }
    // Rounding the inputs to 8 bits of mantissa: about 0.2 % relative RMS here, not more.
    EXPECT_LT(std::sqrt(err2 / ref2), 0.01);
    EXPECT_GT(std::sqrt(err2 / ref2), 0.0) << "the exact path ran instead";
    for (int threads : {1, 3}) {
        ThreadPool p(threads);
        for (int64_t i = 0; i < n; ++i) {
            backend::linear({backend::KernelSet::fast, &p, true}, x.data() + i * in, 1, view,
                            bias.data(), solo.data());
            for (int64_t r = 0; r < out; ++r)
                ASSERT_EQ(solo[size_t(r)], y[size_t(i * out + r)])
                    << "row " << i << " out " << r << ", " << threads << " threads";
        }
    }
    // A group (q/k/v) equals its separate linears.
    const TensorView* ws[2] = {&view, &view};
    std::vector<float> g0(y.size()), g1(y.size()), sep(y.size());
    float* ys[2] = {g0.data(), g1.data()};
    backend::linear_group(approx, x.data(), n, ws, ys, 2);
    backend::linear(approx, x.data(), n, view, nullptr, sep.data());
    EXPECT_EQ(g0, sep);
    EXPECT_EQ(g1, sep);
    // A width that is not a multiple of 32: the exact path.
    const TensorView narrow{"w", DType::bf16, {4, 48}, w.data()};
    std::vector<float> a(4), b(4);
    backend::linear(approx, x.data(), 1, narrow, nullptr, a.data());
    backend::linear({backend::KernelSet::fast, &pool}, x.data(), 1, narrow, nullptr, b.data());
    EXPECT_EQ(a, b);
}

}  // namespace
}  // namespace qwen3tts
