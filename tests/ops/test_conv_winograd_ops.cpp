// The Winograd convolution (backend/cpu/conv_winograd) against an f64 sum of the same
// convolution, at every SIMD level and tile size: its error relative to the largest output
// stays inside the bound docs/codec.md states for each F(m, 7), for the codec's shapes and
// dilations, with tiles cut short at the end of a call, bias or none, accumulating or not,
// strided rows, and several parts in one call.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "backend/cpu/conv_winograd.hpp"
#include "core/error.hpp"
#include "core/thread_pool.hpp"
#include "ops/isa_levels.hpp"

namespace qwen3tts {
namespace {

std::vector<float> normal_vec(size_t n, std::mt19937& rng, float sigma) {
    std::normal_distribution<float> d(0.0f, sigma);
    std::vector<float> v(n);
    for (auto& x : v) x = d(rng);
    return v;
}

// y[t·c_out + o] = Σ_j Σ_i w[o,i,j]·x[(t + j·d)·c_in + i] in f64, for dense rows.
std::vector<double> conv_f64(const std::vector<float>& x, int64_t rows, const std::vector<float>& w,
                             int c_out, int c_in, int k, int d) {
    std::vector<double> y(size_t(rows * c_out));
    for (int64_t t = 0; t < rows; ++t)
        for (int o = 0; o < c_out; ++o) {
            double s = 0.0;
            for (int j = 0; j < k; ++j)
                for (int i = 0; i < c_in; ++i)
                    s += double(w[(size_t(o) * c_in + i) * k + j]) *
                         double(x[size_t((t + int64_t(j) * d) * c_in + i)]);
            y[size_t(t * c_out + o)] = s;
        }
    return y;
}

// The bound on a convolution's error relative to its largest output, per tile size: about 3x
// the largest measured on these shapes (docs/codec.md).
double error_bound(int m) {
    return m == 2 ? 6e-6 : m == 3 ? 3e-5 : 1e-4;
}

class ConvWinograd : public ::testing::TestWithParam<std::tuple<cpu::Isa, int>> {
  protected:
    void SetUp() override { testing_isa::enter_level(std::get<0>(GetParam())); }
    void TearDown() override { cpu::reset_max_isa(); }
    int tile() const { return std::get<1>(GetParam()); }
};

TEST_P(ConvWinograd, MatchesTheF64Convolution) {
    std::mt19937 rng(5);
    ThreadPool pool(2);
    struct Shape {
        int c_out, c_in, k, d;
        int64_t rows;
    };
    // The codec's residual units (k 7, dilation 1/3/9, 96-768 channels), rows that cut the last
    // tiles short (fewer than one tile of a phase, 1 row), a conv of few taps and odd widths.
    const Shape shapes[] = {{96, 96, 7, 9, 130}, {192, 192, 7, 3, 64}, {768, 768, 7, 1, 13},
                            {96, 96, 7, 9, 5},   {37, 19, 3, 2, 41},   {40, 130, 7, 3, 1}};
    for (const Shape& s : shapes) {
        const int64_t hist = int64_t(s.k - 1) * s.d;
        // The codec's scale: unit inputs, weights of unit output variance.
        const auto w =
            normal_vec(size_t(s.c_out) * s.c_in * s.k, rng, 1.0f / std::sqrt(float(s.c_in * s.k)));
        const auto b = normal_vec(size_t(s.c_out), rng, 0.1f);
        const auto x_dense = normal_vec(size_t((hist + s.rows) * s.c_in), rng, 1.0f);
        const auto sums = conv_f64(x_dense, s.rows, w, s.c_out, s.c_in, s.k, s.d);
        for (int variant = 0; variant < 4; ++variant) {
            const bool accumulate = variant & 1;
            const bool strided = variant & 2;
            SCOPED_TRACE("c_out " + std::to_string(s.c_out) + " c_in " + std::to_string(s.c_in) +
                         " k " + std::to_string(s.k) + " d " + std::to_string(s.d) + " rows " +
                         std::to_string(s.rows) + " acc " + std::to_string(accumulate) +
                         " strided " + std::to_string(strided));
            const int64_t ldx = s.c_in + (strided ? 5 : 0);
            const int64_t ldy = s.c_out + (strided ? 3 : 0);
            std::vector<float> x(size_t((hist + s.rows) * ldx), 0.0f);
            for (int64_t t = 0; t < hist + s.rows; ++t)
                std::copy_n(x_dense.begin() + t * s.c_in, s.c_in, x.begin() + t * ldx);
            const auto y0 = normal_vec(size_t(s.rows * ldy), rng, 1.0f);
            const float* bias = variant == 2 ? nullptr : b.data();
            auto p = cpu::pack_conv1d(w.data(), s.c_out, s.c_in, s.k, s.d, bias);
            cpu::add_winograd(p, tile());
            for (ThreadPool* tp : {static_cast<ThreadPool*>(nullptr), &pool}) {
                std::vector<float> got = y0;
                const cpu::ConvRows part{x.data(), ldx, s.rows, got.data(), ldy};
                cpu::conv1d_winograd_parts(p, &part, 1, accumulate, tp);
                double err = 0, largest = 0;
                for (int64_t t = 0; t < s.rows; ++t) {
                    for (int o = 0; o < s.c_out; ++o) {
                        const size_t i = size_t(t * ldy + o);
                        const double want = (accumulate ? double(y0[i]) : 0.0) +
                                            (bias ? double(bias[o]) : 0.0) +
                                            sums[size_t(t * s.c_out + o)];
                        err = std::max(err, std::fabs(double(got[i]) - want));
                        largest = std::max(largest, std::fabs(want));
                    }
                    // Padding columns between rows are never written.
                    for (int64_t c = s.c_out; c < ldy; ++c)
                        ASSERT_EQ(got[size_t(t * ldy + c)], y0[size_t(t * ldy + c)]);
                }
                EXPECT_LE(err / largest, error_bound(tile()))
                    << "error " << err << " of " << largest << (tp ? ", 2 threads" : "");
            }
        }
    }
}

// Several inputs through one call (the codec streams of a batch) give each part exactly its
// one-part result, with and without threads: a part's tiles and sums do not depend on the others.
TEST_P(ConvWinograd, PartsEqualEachPartAlone) {
    std::mt19937 rng(9);
    ThreadPool pool(2);
    const int c_out = 64, c_in = 48, k = 7, d = 3;
    const int64_t rows[] = {16, 0, 700, 3, 130};
    const int64_t hist = int64_t(k - 1) * d, ldx = c_in + 1, ldy = c_out + 2;
    const auto w = normal_vec(size_t(c_out) * c_in * k, rng, 0.05f);
    const auto b = normal_vec(size_t(c_out), rng, 0.1f);
    auto p = cpu::pack_conv1d(w.data(), c_out, c_in, k, d, b.data());
    cpu::add_winograd(p, tile());
    for (const bool accumulate : {false, true}) {
        std::vector<std::vector<float>> x, alone;
        std::vector<cpu::ConvRows> parts;
        for (const int64_t n : rows) {
            x.push_back(normal_vec(size_t((hist + n) * ldx), rng, 1.0f));
            alone.push_back(normal_vec(size_t(std::max<int64_t>(n, 1) * ldy), rng, 1.0f));
        }
        const auto start = alone;
        for (size_t i = 0; i < x.size(); ++i) {
            const cpu::ConvRows one{x[i].data(), ldx, rows[i], alone[i].data(), ldy};
            cpu::conv1d_winograd_parts(p, &one, 1, accumulate, nullptr);
        }
        for (ThreadPool* tp : {static_cast<ThreadPool*>(nullptr), &pool}) {
            auto out = start;
            parts.clear();
            for (size_t i = 0; i < x.size(); ++i)
                parts.push_back({x[i].data(), ldx, rows[i], out[i].data(), ldy});
            cpu::conv1d_winograd_parts(p, parts.data(), int(parts.size()), accumulate, tp);
            for (size_t i = 0; i < parts.size(); ++i)
                EXPECT_EQ(out[i], alone[i])
                    << "part " << i << (tp ? ", 2 threads" : "") << " accumulate " << accumulate;
        }
    }
}

std::string test_name(const ::testing::TestParamInfo<std::tuple<cpu::Isa, int>>& info) {
    return std::string(cpu::isa_name(std::get<0>(info.param))) + "_F" +
           std::to_string(std::get<1>(info.param));
}

INSTANTIATE_TEST_SUITE_P(IsaAndTile, ConvWinograd,
                         ::testing::Combine(testing_isa::kAllLevels, ::testing::Values(2, 3, 4)),
                         test_name);

TEST(ConvWinogradSetup, RejectsWhatItCannotCompute) {
    const std::vector<float> w(size_t(4) * 4 * 7, 0.5f);
    auto p = cpu::pack_conv1d(w.data(), 4, 4, 7, 1, nullptr);
    for (const int m : {1, 5}) EXPECT_THROW(cpu::add_winograd(p, m), Error) << "m " << m;
    auto one_tap = cpu::pack_conv1d(w.data(), 4, 4, 1, 1, nullptr);
    EXPECT_THROW(cpu::add_winograd(one_tap, 2), Error);
    // F(4, 10) would need 13 points.
    const std::vector<float> w10(size_t(4) * 4 * 10, 0.5f);
    auto ten_taps = cpu::pack_conv1d(w10.data(), 4, 4, 10, 1, nullptr);
    EXPECT_THROW(cpu::add_winograd(ten_taps, 4), Error);
    cpu::add_winograd(ten_taps, 3);
    EXPECT_EQ(ten_taps.winograd.n, 12);
}

}  // namespace
}  // namespace qwen3tts
