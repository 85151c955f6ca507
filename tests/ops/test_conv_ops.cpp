// Fast codec conv-stack kernels (backend/cpu) against the plain-loop references
// (backend/reference/conv_ref) on random inputs, at every SIMD level (skipped where the CPU
// lacks it).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "backend/cpu/codec_elementwise.hpp"
#include "backend/cpu/conv_gemm.hpp"
#include "backend/reference/conv_ref.hpp"
#include "core/dtype.hpp"
#include "core/error.hpp"
#include "core/thread_pool.hpp"
#include "ops/isa_levels.hpp"

namespace qwen3tts {
namespace {

std::vector<float> random_vec(size_t n, std::mt19937& rng, float lo = -1.0f, float hi = 1.0f) {
    std::uniform_real_distribution<float> d(lo, hi);
    std::vector<float> v(n);
    for (auto& x : v) x = d(rng);
    return v;
}

// max |a-b| over the [rows, cols] block of two strided buffers, and max |b| there.
std::pair<double, double> block_diff(const float* a, const float* b, int64_t rows, int cols,
                                     int64_t ld) {
    double d = 0, m = 0;
    for (int64_t t = 0; t < rows; ++t)
        for (int c = 0; c < cols; ++c) {
            d = std::max(d, double(std::fabs(a[t * ld + c] - b[t * ld + c])));
            m = std::max(m, double(std::fabs(b[t * ld + c])));
        }
    return {d, m};
}

using ConvOps = testing_isa::AtLevel;
using SnakeBetaOp = testing_isa::AtLevel;

TEST_P(ConvOps, KernelIsTheLevels) {
    EXPECT_STREQ(cpu::conv_gemm_isa(), cpu::isa_name(GetParam()));
}

TEST_P(ConvOps, Conv1dGemmMatchesReference) {
    std::mt19937 rng(42);
    ThreadPool pool(2);
    struct Shape {
        int c_out, c_in, k, d;
        int64_t rows;
    };
    const Shape shapes[] = {{1, 96, 7, 1, 300},  {5, 3, 3, 1, 13},    {32, 16, 1, 1, 1},
                            {40, 130, 7, 3, 50}, {96, 96, 7, 9, 500}, {64, 200, 2, 1, 37},
                            {33, 257, 1, 1, 25}, {17, 8, 7, 2, 1000}};
    for (const Shape& s : shapes)
        for (int variant = 0; variant < 4; ++variant) {
            const bool accumulate = variant & 1;
            const bool strided = variant & 2;
            SCOPED_TRACE("c_out " + std::to_string(s.c_out) + " c_in " + std::to_string(s.c_in) +
                         " k " + std::to_string(s.k) + " d " + std::to_string(s.d) + " rows " +
                         std::to_string(s.rows) + " acc " + std::to_string(accumulate) +
                         " strided " + std::to_string(strided));
            const int64_t ldx = s.c_in + (strided ? 5 : 0);
            const int64_t ldy = s.c_out + (strided ? 3 : 0);
            const int64_t hist = int64_t(s.k - 1) * s.d;
            const auto w = random_vec(size_t(s.c_out) * s.c_in * s.k, rng);
            const auto b = random_vec(size_t(s.c_out), rng);
            const auto x = random_vec(size_t((hist + s.rows) * ldx), rng);
            const auto y0 = random_vec(size_t(s.rows * ldy), rng);
            const float* bias = variant == 2 ? nullptr : b.data();
            std::vector<float> want = y0, got = y0, got_mt = y0;
            ref::conv1d(x.data(), ldx, s.rows, w.data(), bias, s.c_out, s.c_in, s.k, s.d,
                        want.data(), ldy, accumulate);
            const auto p = cpu::pack_conv1d(w.data(), s.c_out, s.c_in, s.k, s.d, bias);
            cpu::conv1d_gemm(p, x.data(), ldx, s.rows, got.data(), ldy, accumulate, nullptr);
            cpu::conv1d_gemm(p, x.data(), ldx, s.rows, got_mt.data(), ldy, accumulate, &pool);
            const auto [d1, m1] = block_diff(got.data(), want.data(), s.rows, s.c_out, ldy);
            const auto [d2, m2] = block_diff(got_mt.data(), want.data(), s.rows, s.c_out, ldy);
            const double tol = 2e-6 * std::sqrt(double(s.c_in * s.k)) * (1.0 + m1);
            EXPECT_LE(d1, tol) << "max|ref| " << m1;
            EXPECT_LE(d2, tol) << "threaded, max|ref| " << m2;
            // Padding columns between rows are never written.
            for (int64_t t = 0; t < s.rows; ++t)
                for (int64_t c = s.c_out; c < ldy; ++c)
                    ASSERT_EQ(got[size_t(t * ldy + c)], y0[size_t(t * ldy + c)]);
        }
}

// Several inputs through one multi-part call (the codec streams of a batch) give each part
// exactly its one-part result, bit for bit: the same tiles and reduction order, whatever the
// other parts, their number, or the threads. Shapes cover the panel and the narrow kernels,
// one and several row blocks per part, and an empty part.
TEST_P(ConvOps, Conv1dGemmPartsEqualEachPartAlone) {
    std::mt19937 rng(11);
    ThreadPool pool(2);
    struct Shape {
        int c_out, c_in, k, d;
    };
    const Shape shapes[] = {{64, 48, 7, 3}, {1, 96, 7, 1}, {40, 130, 1, 1}};
    const int64_t rows[] = {16, 0, 700, 3, 130};
    for (const Shape& s : shapes)
        for (const bool accumulate : {false, true}) {
            SCOPED_TRACE("c_out " + std::to_string(s.c_out) + " c_in " + std::to_string(s.c_in) +
                         " acc " + std::to_string(accumulate));
            const int64_t hist = int64_t(s.k - 1) * s.d;
            const int64_t ldx = s.c_in + 1, ldy = s.c_out + 2;
            const auto w = random_vec(size_t(s.c_out) * s.c_in * s.k, rng);
            const auto b = random_vec(size_t(s.c_out), rng);
            const auto p = cpu::pack_conv1d(w.data(), s.c_out, s.c_in, s.k, s.d, b.data());
            std::vector<std::vector<float>> x, alone, together;
            std::vector<cpu::ConvRows> parts;
            for (const int64_t n : rows) {
                x.push_back(random_vec(size_t((hist + n) * ldx), rng));
                alone.push_back(random_vec(size_t(std::max<int64_t>(n, 1) * ldy), rng));
                together.push_back(alone.back());
            }
            for (size_t i = 0; i < x.size(); ++i) {
                cpu::conv1d_gemm(p, x[i].data(), ldx, rows[i], alone[i].data(), ldy, accumulate,
                                 nullptr);
                parts.push_back({x[i].data(), ldx, rows[i], together[i].data(), ldy});
            }
            for (ThreadPool* tp : {static_cast<ThreadPool*>(nullptr), &pool}) {
                auto out = together;
                for (size_t i = 0; i < parts.size(); ++i) parts[i].y = out[i].data();
                cpu::conv1d_gemm_parts(p, parts.data(), int(parts.size()), accumulate, tp);
                for (size_t i = 0; i < parts.size(); ++i)
                    EXPECT_EQ(out[i], alone[i]) << "part " << i << (tp ? ", 2 threads" : "");
            }
        }
}

TEST_P(ConvOps, ConvTranspose1dMatchesReference) {
    std::mt19937 rng(7);
    ThreadPool pool(2);
    struct Shape {
        int c_in, c_out, stride, mult;
        int64_t n_in;
    };
    const Shape shapes[] = {{16, 8, 8, 2, 9},  {12, 6, 5, 2, 20}, {40, 20, 4, 2, 33},
                            {10, 5, 3, 2, 50}, {24, 24, 2, 1, 7}, {7, 3, 3, 1, 1}};
    for (const Shape& s : shapes) {
        const int kernel = s.stride * s.mult;
        SCOPED_TRACE("c_in " + std::to_string(s.c_in) + " stride " + std::to_string(s.stride) +
                     " kernel " + std::to_string(kernel));
        const int64_t hist = s.mult - 1;
        const auto w = random_vec(size_t(s.c_in) * s.c_out * kernel, rng);
        const auto b = random_vec(size_t(s.c_out), rng);
        const auto x = random_vec(size_t((hist + s.n_in) * s.c_in), rng);
        const int64_t n_out = s.n_in * s.stride;
        std::vector<float> want(size_t(n_out * s.c_out)), got(want.size());
        ref::conv_transpose1d(x.data(), s.c_in, s.n_in, w.data(), b.data(), s.c_in, s.c_out, kernel,
                              s.stride, want.data(), s.c_out);
        // All stride phases in one call: input row n writes output rows n·stride .. +stride-1.
        const auto p =
            cpu::pack_conv_transpose1d(w.data(), s.c_in, s.c_out, kernel, s.stride, b.data());
        ASSERT_EQ(p.c_out, s.c_out * s.stride);
        cpu::conv1d_gemm(p, x.data(), s.c_in, s.n_in, got.data(), int64_t(s.c_out) * s.stride,
                         false, &pool);
        const auto [d, m] = block_diff(got.data(), want.data(), n_out, s.c_out, s.c_out);
        EXPECT_LE(d, 1e-5 * (1.0 + m));
    }
}

TEST_P(ConvOps, ConvTranspose1dRejectsKernelNotMultipleOfStride) {
    std::vector<float> w(4 * 4 * 5, 0.0f);
    EXPECT_ANY_THROW(cpu::pack_conv_transpose1d(w.data(), 4, 4, 5, 2, nullptr));
}

// A checkpoint tensor packed in place (F32, BF16 or F16 bytes, as a mapped file holds them)
// gives exactly the panels of its values widened to f32 first, the padding columns of the
// last panel zero.
struct StoredTensor {
    TensorView view;
    std::vector<unsigned char> bytes;
    std::vector<float> widened;  // the values the bytes hold, as f32
};

StoredTensor stored(DType dtype, const std::string& name, std::vector<int64_t> shape,
                    std::mt19937& rng) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    StoredTensor t;
    t.widened = random_vec(size_t(n), rng);
    t.bytes.resize(size_t(n) * dtype_size(dtype));
    for (size_t i = 0; i < size_t(n); ++i) {
        if (dtype == DType::f32) {
            std::memcpy(t.bytes.data() + 4 * i, &t.widened[i], 4);
            continue;
        }
        const uint16_t h =
            dtype == DType::bf16 ? f32_to_bf16(t.widened[i]) : f32_to_f16(t.widened[i]);
        t.widened[i] = dtype == DType::bf16 ? bf16_to_f32(h) : f16_to_f32(h);
        std::memcpy(t.bytes.data() + 2 * i, &h, 2);
    }
    t.view.name = name;
    t.view.dtype = dtype;
    t.view.shape = std::move(shape);
    t.view.data = t.bytes.data();
    return t;
}

void expect_same_panels(const cpu::PackedConv& got, const cpu::PackedConv& want) {
    ASSERT_EQ(got.panels.size(), want.panels.size());
    EXPECT_EQ(std::memcmp(got.panels.data(), want.panels.data(), got.panels.size() * sizeof(float)),
              0);
    EXPECT_EQ(got.bias, want.bias);
    EXPECT_EQ(got.narrow, want.narrow);
    // The last panel's columns past c_out are zero.
    const size_t panel = got.panels.size() / size_t(got.n_panel());
    for (size_t k = size_t(got.n_panel() - 1) * panel; k < got.panels.size(); ++k) {
        if (int(k % cpu::kPanel) + (got.n_panel() - 1) * cpu::kPanel >= got.c_out) {
            ASSERT_EQ(got.panels[k], 0.0f) << "padding element " << k;
        }
    }
}

TEST(ConvPacking, AStoredTensorPacksAsItsWidenedValues) {
    std::mt19937 rng(7);
    for (const DType dtype : {DType::f32, DType::bf16, DType::f16}) {
        SCOPED_TRACE(dtype_name(dtype));
        const auto bias = random_vec(49, rng);  // enough for every packing below
        const StoredTensor conv = stored(dtype, "conv.weight", {37, 19, 7}, rng);
        expect_same_panels(cpu::pack_conv1d(conv.view, 37, 19, 7, 3, bias.data()),
                           cpu::pack_conv1d(conv.widened.data(), 37, 19, 7, 3, bias.data()));
        const StoredTensor narrow = stored(dtype, "final.weight", {1, 24, 7}, rng);
        expect_same_panels(cpu::pack_conv1d(narrow.view, 1, 24, 7, 1, nullptr),
                           cpu::pack_conv1d(narrow.widened.data(), 1, 24, 7, 1, nullptr));
        const StoredTensor up = stored(dtype, "up.weight", {11, 13, 8}, rng);
        expect_same_panels(
            cpu::pack_conv_transpose1d(up.view, 11, 13, 8, 4, bias.data()),
            cpu::pack_conv_transpose1d(up.widened.data(), 11, 13, 8, 4, bias.data()));
        // A strided conv (kernel 8, stride 4) as a 2-tap conv over rows of 4·5 values.
        const StoredTensor down = stored(dtype, "down.weight", {13, 5, 8}, rng);
        std::vector<float> blocks(size_t(13) * 20 * 2);
        for (int o = 0; o < 13; ++o)
            for (int b = 0; b < 2; ++b)
                for (int r = 0; r < 4; ++r)
                    for (int i = 0; i < 5; ++i)
                        blocks[(size_t(o) * 20 + size_t(r) * 5 + size_t(i)) * 2 + size_t(b)] =
                            down.widened[(size_t(o) * 5 + size_t(i)) * 8 + size_t(b) * 4 +
                                         size_t(r)];
        expect_same_panels(cpu::pack_strided_conv1d(down.view, 13, 5, 8, 4, bias.data()),
                           cpu::pack_conv1d(blocks.data(), 13, 20, 2, 1, bias.data()));
        // q/k/v stacked: the rows of the parts in order, as one matrix.
        const StoredTensor q = stored(dtype, "q.weight", {40, 24}, rng);
        const StoredTensor k = stored(dtype, "k.weight", {9, 24}, rng);
        std::vector<float> rows = q.widened;
        rows.insert(rows.end(), k.widened.begin(), k.widened.end());
        const TensorView* parts[] = {&q.view, &k.view};
        expect_same_panels(cpu::pack_stacked_linear(parts, 2, 24, bias.data()),
                           cpu::pack_linear(rows.data(), 49, 24, bias.data()));
    }
}

TEST(ConvPacking, ANonFloatOrMixedTensorIsAnErrorNamingIt) {
    std::mt19937 rng(8);
    StoredTensor ints = stored(DType::f32, "decoder.conv.weight", {4, 4, 3}, rng);
    ints.view.dtype = DType::i32;
    try {
        cpu::pack_conv1d(ints.view, 4, 4, 3, 1, nullptr);
        FAIL() << "packed an I32 tensor";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("decoder.conv.weight"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("I32"), std::string::npos) << e.what();
    }
    const StoredTensor q = stored(DType::f32, "q_proj.weight", {8, 16}, rng);
    const StoredTensor k = stored(DType::bf16, "k_proj.weight", {8, 16}, rng);
    const TensorView* parts[] = {&q.view, &k.view};
    try {
        cpu::pack_stacked_linear(parts, 2, 16, nullptr);
        FAIL() << "packed F32 and BF16 parts together";
    } catch (const Error& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("q_proj.weight"), std::string::npos) << m;
        EXPECT_NE(m.find("k_proj.weight"), std::string::npos) << m;
    }
}

TEST_P(SnakeBetaOp, MatchesReference) {
    std::mt19937 rng(3);
    ThreadPool pool(2);
    for (int n_ch : {1, 7, 16, 96, 100}) {
        const int64_t rows = 301, ld = n_ch + 2;
        const auto x = random_vec(size_t(rows * ld), rng, -20.0f, 20.0f);
        const auto alpha = random_vec(size_t(n_ch), rng, -1.5f, 1.5f);
        const auto beta = random_vec(size_t(n_ch), rng, -1.5f, 1.5f);
        std::vector<float> a(alpha.size()), inv_b(beta.size());
        for (size_t c = 0; c < a.size(); ++c) {
            a[c] = std::exp(alpha[c]);
            inv_b[c] = 1.0f / (std::exp(beta[c]) + 1e-9f);
        }
        std::vector<float> want(x.size(), 0.0f), got(x.size(), 0.0f), inplace = x;
        ref::snake_beta(x.data(), ld, rows, n_ch, alpha.data(), beta.data(), want.data(), ld);
        cpu::snake_beta(x.data(), ld, rows, n_ch, a.data(), inv_b.data(), got.data(), ld, nullptr);
        cpu::snake_beta(inplace.data(), ld, rows, n_ch, a.data(), inv_b.data(), inplace.data(), ld,
                        &pool);
        for (int64_t t = 0; t < rows; ++t)
            for (int c = 0; c < n_ch; ++c) {
                const size_t i = size_t(t * ld + c);
                const float tol = 2e-6f * (1.0f + std::fabs(want[i]));
                ASSERT_NEAR(got[i], want[i], tol) << "row " << t << " ch " << c << " x " << x[i];
                ASSERT_NEAR(inplace[i], want[i], tol);
            }
    }
}

INSTANTIATE_TEST_SUITE_P(Isa, ConvOps, testing_isa::kAllLevels, testing_isa::level_test_name);
INSTANTIATE_TEST_SUITE_P(Isa, SnakeBetaOp, testing_isa::kAllLevels, testing_isa::level_test_name);

}  // namespace
}  // namespace qwen3tts
