// The vectorised element-wise kernels of a decoder step, SiLU (with its exp), RMSNorm and RoPE,
// at every SIMD level: exp against long-double expl, every level bit for bit against the scalar
// definition written here (so a batched step, whose values fall at other positions in the
// vectors and tails, gives its rows' single-step values).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "backend/cpu/silu_cpu.hpp"
#include "backend/ops.hpp"
#include "ops/isa_levels.hpp"

namespace qwen3tts {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

bool same_float(float a, float b) {
    return (std::isnan(a) && std::isnan(b)) || std::memcmp(&a, &b, sizeof a) == 0;
}

TEST(ExpViaDouble, IsTheCorrectlyRoundedExp) {
    std::vector<float> values = {0.0f,     -0.0f,   1.0f,    -1.0f,    88.72f,
                                 88.73f,   -87.33f, -103.9f, -104.0f,  -110.5f,
                                 90.5f,    1e-30f,  -1e-30f, 1.4e-45f, 3.0e38f,
                                 -3.0e38f, kInf,    -kInf,   kNan,     0x1.fefe02p-16f};
    // Every 4099th bit pattern: all exponents, both signs (about a million floats).
    for (uint64_t bits = 0; bits < (uint64_t(1) << 32); bits += 4099) {
        const uint32_t b = uint32_t(bits);
        float v;
        std::memcpy(&v, &b, sizeof v);
        values.push_back(v);
    }
    int64_t wrong = 0;
    for (const float t : values) {
        const float want = static_cast<float>(std::exp(static_cast<long double>(t)));
        const float got = cpu::exp_via_double(t);
        if (!same_float(got, want) && ++wrong <= 5)
            ADD_FAILURE() << "exp(" << std::hexfloat << t << ") = " << got << ", want " << want;
    }
    EXPECT_EQ(wrong, 0) << "of " << values.size();
}

float silu_definition(float g) {
    return g / (1.0f + cpu::exp_via_double(-g));
}

std::vector<float> activations(size_t n, std::mt19937& rng) {
    std::uniform_real_distribution<float> wide(-120.0f, 120.0f), narrow(-6.0f, 6.0f);
    const float special[] = {kInf, -kInf, kNan, 0.0f, -0.0f, 1e-40f, 3e38f, -3e38f, 88.8f, -88.8f};
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i)
        v[i] = i % 11 == 10 ? special[(i / 11) % std::size(special)]
               : i % 3 == 0 ? wide(rng)
                            : narrow(rng);
    return v;
}

class SiluAtLevel : public testing_isa::AtLevel {};

TEST_P(SiluAtLevel, EveryValueIsTheScalarDefinitionBitForBit) {
    std::mt19937 rng(21);
    for (const int64_t n : {1, 7, 8, 15, 16, 17, 31, 32, 33, 3077}) {
        const auto g = activations(size_t(n), rng), u = activations(size_t(n), rng);
        std::vector<float> out(static_cast<size_t>(n)), in_place = g, silu_only = g;
        backend::silu_mul(g.data(), u.data(), n, out.data());
        backend::silu_mul(in_place.data(), u.data(), n, in_place.data());
        backend::silu_inplace(silu_only.data(), n);
        int64_t wrong = 0;
        for (int64_t i = 0; i < n; ++i) {
            const float s = silu_definition(g[size_t(i)]);
            const bool ok = same_float(out[size_t(i)], s * u[size_t(i)]) &&
                            same_float(in_place[size_t(i)], out[size_t(i)]) &&
                            same_float(silu_only[size_t(i)], s);
            if (!ok && ++wrong <= 3)
                ADD_FAILURE() << "n " << n << " at " << i << ": silu(" << g[size_t(i)]
                              << ") = " << silu_only[size_t(i)] << ", want " << s;
        }
        EXPECT_EQ(wrong, 0) << "n " << n;
    }
}

TEST_P(SiluAtLevel, IsCloseToTheDoublePrecisionSilu) {
    std::mt19937 rng(22);
    const auto g = activations(4096, rng);
    std::vector<float> s = g;
    backend::silu_inplace(s.data(), int64_t(s.size()));
    for (size_t i = 0; i < g.size(); ++i) {
        if (!std::isfinite(g[i]) || std::abs(g[i]) > 80.0f) continue;
        const double want = double(g[i]) / (1.0 + std::exp(-double(g[i])));
        EXPECT_NEAR(s[i], want, 4e-7 * std::abs(want) + 1e-38) << g[i];
    }
}

// The documented order: element j to partial sum j mod 8, the tail to sum 0, pairwise at the
// end; then w · (x · inv) in float.
std::vector<float> rms_definition(const std::vector<float>& x, const std::vector<float>& w,
                                  int64_t n, int64_t d, float eps) {
    std::vector<float> y(x.size());
    for (int64_t i = 0; i < n; ++i) {
        const float* xi = x.data() + i * d;
        double part[8] = {};
        int64_t j = 0;
        for (; j + 8 <= d; j += 8)
            for (int l = 0; l < 8; ++l) part[l] += double(xi[j + l]) * double(xi[j + l]);
        for (; j < d; ++j) part[0] += double(xi[j]) * double(xi[j]);
        const double ss = ((part[0] + part[1]) + (part[2] + part[3])) +
                          ((part[4] + part[5]) + (part[6] + part[7]));
        const float inv = float(1.0 / std::sqrt(ss / double(d) + double(eps)));
        for (j = 0; j < d; ++j) y[size_t(i * d + j)] = w[size_t(j)] * (xi[j] * inv);
    }
    return y;
}

class RmsNormAtLevel : public testing_isa::AtLevel {};

TEST_P(RmsNormAtLevel, EveryRowIsTheDocumentedSumOrderBitForBit) {
    std::mt19937 rng(23);
    std::uniform_real_distribution<float> dist(-3.0f, 3.0f);
    for (const int64_t d : {1, 7, 8, 9, 128, 1000, 1024, 2048}) {
        const int64_t n = 3;
        std::vector<float> x(static_cast<size_t>(n * d)), w(static_cast<size_t>(d));
        for (auto& v : x) v = dist(rng);
        for (auto& v : w) v = dist(rng);
        const auto want = rms_definition(x, w, n, d, 1e-6f);
        std::vector<float> y(x.size()), in_place = x;
        backend::rms_norm(x.data(), w.data(), n, d, 1e-6f, y.data());
        backend::rms_norm(in_place.data(), w.data(), n, d, 1e-6f, in_place.data());
        EXPECT_EQ(0, std::memcmp(y.data(), want.data(), y.size() * sizeof(float))) << "d " << d;
        EXPECT_EQ(0, std::memcmp(in_place.data(), want.data(), y.size() * sizeof(float)))
            << "in place, d " << d;
    }
}

// Products rounded on their own, never fused with the sum that follows (the definition).
float product(float a, float b) {
    volatile float p = a * b;
    return p;
}

class RopeAtLevel : public testing_isa::AtLevel {};

TEST_P(RopeAtLevel, EveryValueIsTheRotateHalfDefinitionBitForBit) {
    std::mt19937 rng(29);
    std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
    // Half widths 64 and 32 (whole vectors), 20 (a vector and a tail), 1 (a tail only).
    for (const int64_t head_dim : {128, 64, 40, 2}) {
        const int64_t n = 3, n_head = 3, half = head_dim / 2;
        const int64_t ldx = n_head * head_dim + 5;  // columns past the heads stay as they are
        std::vector<float> x(size_t(n * ldx)), cos(size_t(n * half)), sin(cos.size());
        for (auto& v : x) v = dist(rng);
        for (auto& v : cos) v = dist(rng) / 4.0f;
        for (auto& v : sin) v = dist(rng) / 4.0f;
        std::vector<float> want = x;
        for (int64_t i = 0; i < n; ++i)
            for (int64_t h = 0; h < n_head; ++h)
                for (int64_t j = 0; j < half; ++j) {
                    const size_t lo = size_t(i * ldx + h * head_dim + j), hi = lo + size_t(half);
                    const float a = x[lo], b = x[hi];
                    const float c = cos[size_t(i * half + j)], s = sin[size_t(i * half + j)];
                    want[lo] = product(a, c) - product(b, s);
                    want[hi] = product(b, c) + product(a, s);
                }
        backend::rope(x.data(), n, ldx, n_head, head_dim, cos.data(), sin.data());
        for (size_t k = 0; k < x.size(); ++k)
            ASSERT_TRUE(same_float(x[k], want[k]))
                << "head_dim " << head_dim << " value " << k << ": " << x[k] << " vs " << want[k];
    }
}

INSTANTIATE_TEST_SUITE_P(Isa, SiluAtLevel, testing_isa::kAllLevels, testing_isa::level_test_name);
INSTANTIATE_TEST_SUITE_P(Isa, RmsNormAtLevel, testing_isa::kAllLevels,
                         testing_isa::level_test_name);
INSTANTIATE_TEST_SUITE_P(Isa, RopeAtLevel, testing_isa::kAllLevels, testing_isa::level_test_name);

}  // namespace
}  // namespace qwen3tts
