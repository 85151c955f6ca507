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
                                         Case{DType::f32, 1, 3, 7}, Case{DType::bf16, 1, 3, 20})),
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
