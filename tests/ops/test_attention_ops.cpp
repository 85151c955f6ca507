// The shared ops of backend/ops.hpp that every model uses — attention (both schedules, both
// kernel sets), RoPE, norms and convolution on prepared weights — against naive loops written
// here in double precision from the PyTorch definitions.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "backend/ops.hpp"
#include "backend/reference/conv_ref.hpp"
#include "core/thread_pool.hpp"
#include "ops/isa_levels.hpp"

namespace qwen3tts {
namespace {

std::vector<float> random_vec(size_t n, std::mt19937& rng) {
    std::uniform_real_distribution<float> d(-1.0f, 1.0f);
    std::vector<float> v(n);
    for (auto& x : v) x = d(rng);
    return v;
}

struct Case {
    int64_t n, q_pos0, n_head, n_head_kv, head_dim, window;
};

// softmax(q·kᵀ/sqrt(d) + mask)·v per query row and head, in double.
std::vector<double> naive_attention(const std::vector<float>& q, int64_t ldq,
                                    const std::vector<float>& k, const std::vector<float>& v,
                                    int64_t ld_kv, const Case& c) {
    std::vector<double> out(size_t(c.n * c.n_head * c.head_dim), 0.0);
    const int64_t group = c.n_head / c.n_head_kv;
    for (int64_t i = 0; i < c.n; ++i)
        for (int64_t h = 0; h < c.n_head; ++h) {
            const int64_t pos = c.q_pos0 + i, kvh = h / group;
            const int64_t lo = c.window > 0 ? std::max<int64_t>(0, pos - c.window + 1) : 0;
            std::vector<double> s;
            double mx = -1e300;
            for (int64_t t = lo; t <= pos; ++t) {
                double dot = 0;
                for (int64_t j = 0; j < c.head_dim; ++j)
                    dot += double(q[size_t(i * ldq + h * c.head_dim + j)]) *
                           k[size_t(t * ld_kv + kvh * c.head_dim + j)];
                s.push_back(dot / std::sqrt(double(c.head_dim)));
                mx = std::max(mx, s.back());
            }
            double sum = 0;
            for (double& x : s) sum += (x = std::exp(x - mx));
            for (int64_t t = lo; t <= pos; ++t)
                for (int64_t j = 0; j < c.head_dim; ++j)
                    out[size_t((i * c.n_head + h) * c.head_dim + j)] +=
                        s[size_t(t - lo)] / sum * v[size_t(t * ld_kv + kvh * c.head_dim + j)];
        }
    return out;
}

class AttentionOps : public ::testing::TestWithParam<backend::KernelSet> {};

TEST_P(AttentionOps, MatchesNaiveSoftmaxAttention) {
    std::mt19937 rng(7);
    ThreadPool pool(2);
    const backend::ExecContext ctx{GetParam(), &pool};
    // Decode steps, short and long (blocked-GEMM) query blocks, GQA, windows, offsets.
    const Case cases[] = {{1, 0, 2, 1, 8, 0},      {1, 37, 4, 2, 16, 0},     {5, 10, 4, 4, 8, 72},
                          {28, 0, 16, 8, 128, 0},  {64, 0, 8, 8, 64, 0},     {200, 0, 8, 8, 64, 0},
                          {150, 40, 4, 2, 32, 72}, {300, 0, 16, 16, 64, 72}, {130, 5, 2, 1, 16, 9}};
    for (const Case& c : cases) {
        SCOPED_TRACE("n " + std::to_string(c.n) + " pos0 " + std::to_string(c.q_pos0) + " heads " +
                     std::to_string(c.n_head) + "/" + std::to_string(c.n_head_kv) + " window " +
                     std::to_string(c.window));
        // q rows carry 3 spare columns, k/v rows 5: strides are honoured.
        const int64_t ldq = c.n_head * c.head_dim + 3, ld_kv = c.n_head_kv * c.head_dim + 5;
        const int64_t ldo = c.n_head * c.head_dim + 1;
        const auto q = random_vec(size_t(c.n * ldq), rng);
        const auto k = random_vec(size_t((c.q_pos0 + c.n) * ld_kv), rng);
        const auto v = random_vec(size_t((c.q_pos0 + c.n) * ld_kv), rng);
        std::vector<float> out(size_t(c.n * ldo), 123.0f);
        backend::attention(ctx, q.data(), ldq, k.data(), v.data(), ld_kv, c.n, c.q_pos0,
                           {c.n_head, c.n_head_kv, c.head_dim, c.window}, out.data(), ldo);
        const auto expected = naive_attention(q, ldq, k, v, ld_kv, c);
        double max_diff = 0;
        for (int64_t i = 0; i < c.n; ++i) {
            for (int64_t j = 0; j < c.n_head * c.head_dim; ++j)
                max_diff =
                    std::max(max_diff, std::fabs(out[size_t(i * ldo + j)] -
                                                 expected[size_t(i * c.n_head * c.head_dim + j)]));
            EXPECT_EQ(out[size_t(i * ldo + ldo - 1)], 123.0f) << "wrote past the row";
        }
        EXPECT_LT(max_diff, 2e-6);
    }
}

INSTANTIATE_TEST_SUITE_P(KernelSets, AttentionOps,
                         ::testing::Values(backend::KernelSet::reference, backend::KernelSet::fast),
                         [](const ::testing::TestParamInfo<backend::KernelSet>& p) {
                             return p.param == backend::KernelSet::fast ? "fast" : "reference";
                         });

// The decode-step schedule at every SIMD level: against the naive loops, and each query row
// bit for bit the same whether it is computed with the others (one parallel region over all
// rows and heads) or alone on one thread (batch invariance).
class AttentionRowsAtLevel : public testing_isa::AtLevel {};

TEST_P(AttentionRowsAtLevel, MatchesNaiveAndRowsDoNotDependOnTheBatch) {
    std::mt19937 rng(11);
    ThreadPool pool(2);
    // head_dim 128 (the talker's), 48 (a 16-lane tail), 8 (AVX2 lanes only), 12 (scalar).
    const Case cases[] = {{1, 63, 16, 8, 128, 0},
                          {6, 200, 16, 8, 128, 0},
                          {3, 9, 4, 2, 48, 0},
                          {4, 5, 2, 1, 8, 3},
                          {2, 7, 2, 2, 12, 0}};
    for (const Case& c : cases) {
        SCOPED_TRACE("n " + std::to_string(c.n) + " pos0 " + std::to_string(c.q_pos0) + " hd " +
                     std::to_string(c.head_dim));
        const int64_t ldq = c.n_head * c.head_dim + 3, ld_kv = c.n_head_kv * c.head_dim + 5;
        const int64_t ldo = c.n_head * c.head_dim;
        const auto q = random_vec(size_t(c.n * ldq), rng);
        const auto k = random_vec(size_t((c.q_pos0 + c.n) * ld_kv), rng);
        const auto v = random_vec(size_t((c.q_pos0 + c.n) * ld_kv), rng);
        const backend::AttentionShape shape{c.n_head, c.n_head_kv, c.head_dim, c.window};
        std::vector<float> all(size_t(c.n * ldo)), one(static_cast<size_t>(ldo));
        backend::attention({backend::KernelSet::fast, &pool}, q.data(), ldq, k.data(), v.data(),
                           ld_kv, c.n, c.q_pos0, shape, all.data(), ldo);
        const auto expected = naive_attention(q, ldq, k, v, ld_kv, c);
        double max_diff = 0;
        for (size_t j = 0; j < all.size(); ++j)
            max_diff = std::max(max_diff, std::fabs(all[j] - expected[j]));
        EXPECT_LT(max_diff, 2e-6);
        for (int64_t i = 0; i < c.n; ++i) {
            backend::attention({backend::KernelSet::fast, nullptr}, q.data() + i * ldq, ldq,
                               k.data(), v.data(), ld_kv, 1, c.q_pos0 + i, shape, one.data(), ldo);
            for (int64_t j = 0; j < ldo; ++j)
                ASSERT_EQ(one[size_t(j)], all[size_t(i * ldo + j)]) << "row " << i << " col " << j;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Isa, AttentionRowsAtLevel, testing_isa::kAllLevels,
                         testing_isa::level_test_name);

// Several streams' decode steps in one call (each its own cache and position): every row bit
// for bit what attention() gives that stream alone, at every level, for any stream count.
class AttentionStreamsAtLevel : public testing_isa::AtLevel {};

TEST_P(AttentionStreamsAtLevel, EachRowEqualsItsStreamAlone) {
    std::mt19937 rng(13);
    ThreadPool pool(2);
    const backend::AttentionShape shape{16, 8, 128, 0};
    const int64_t ldq = 16 * 128, ld_kv = 8 * 128 + 2, ldo = 16 * 128;
    for (int64_t n : {1, 3, 17}) {
        std::vector<std::vector<float>> ks, vs;
        std::vector<const float*> kp, vp;
        std::vector<int64_t> pos;
        for (int64_t i = 0; i < n; ++i) {
            pos.push_back((i * 37) % 90);  // 0 .. 89 keys before the query
            ks.push_back(random_vec(size_t((pos.back() + 1) * ld_kv), rng));
            vs.push_back(random_vec(size_t((pos.back() + 1) * ld_kv), rng));
            kp.push_back(ks.back().data());
            vp.push_back(vs.back().data());
        }
        const auto q = random_vec(size_t(n * ldq), rng);
        std::vector<float> all(size_t(n * ldo), 7.0f), one(static_cast<size_t>(ldo));
        backend::attention_streams({backend::KernelSet::fast, &pool}, q.data(), ldq, kp.data(),
                                   vp.data(), ld_kv, pos.data(), n, shape, all.data(), ldo);
        for (int64_t i = 0; i < n; ++i) {
            backend::attention({backend::KernelSet::fast, nullptr}, q.data() + i * ldq, ldq,
                               kp[size_t(i)], vp[size_t(i)], ld_kv, 1, pos[size_t(i)], shape,
                               one.data(), ldo);
            for (int64_t j = 0; j < ldo; ++j)
                ASSERT_EQ(one[size_t(j)], all[size_t(i * ldo + j)])
                    << n << " streams, row " << i << " col " << j;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Isa, AttentionStreamsAtLevel, testing_isa::kAllLevels,
                         testing_isa::level_test_name);

TEST(SharedOps, RopeRotatesHalvesWithStride) {
    std::mt19937 rng(3);
    const int64_t n = 3, n_head = 2, hd = 8, ldx = n_head * hd + 4;
    auto x = random_vec(size_t(n * ldx), rng);
    const auto x0 = x;
    const auto cos = random_vec(size_t(n * hd / 2), rng), sin = random_vec(size_t(n * hd / 2), rng);
    backend::rope(x.data(), n, ldx, n_head, hd, cos.data(), sin.data());
    for (int64_t i = 0; i < n; ++i) {
        for (int64_t h = 0; h < n_head; ++h)
            for (int64_t j = 0; j < hd; ++j) {
                // x·cos + rotate_half(x)·sin with rotate_half([a, b]) = [-b, a]
                const int64_t jj = j % (hd / 2);
                const double a = x0[size_t(i * ldx + h * hd + j)];
                const double r = j < hd / 2 ? -double(x0[size_t(i * ldx + h * hd + j + hd / 2)])
                                            : double(x0[size_t(i * ldx + h * hd + j - hd / 2)]);
                const double c = cos[size_t(i * hd / 2 + jj)], s = sin[size_t(i * hd / 2 + jj)];
                EXPECT_NEAR(x[size_t(i * ldx + h * hd + j)], a * c + r * s, 1e-6);
            }
        for (int64_t j = n_head * hd; j < ldx; ++j)
            EXPECT_EQ(x[size_t(i * ldx + j)], x0[size_t(i * ldx + j)]) << "padding changed";
    }
}

TEST(SharedOps, NormsMatchTorchDefinitions) {
    std::mt19937 rng(5);
    const int64_t n = 4, d = 1024;
    const auto x = random_vec(size_t(n * d), rng), w = random_vec(size_t(d), rng),
               b = random_vec(size_t(d), rng);
    std::vector<float> rms(size_t(n * d)), ln(size_t(n * d));
    backend::rms_norm(x.data(), w.data(), n, d, 1e-6f, rms.data());
    backend::layer_norm(x.data(), w.data(), b.data(), n, d, 1e-5f, ln.data());
    for (int64_t i = 0; i < n; ++i) {
        double ss = 0, sum = 0;
        for (int64_t j = 0; j < d; ++j) ss += double(x[size_t(i * d + j)]) * x[size_t(i * d + j)];
        for (int64_t j = 0; j < d; ++j) sum += x[size_t(i * d + j)];
        const double mean = sum / d;
        double var = 0;
        for (int64_t j = 0; j < d; ++j) var += std::pow(x[size_t(i * d + j)] - mean, 2);
        var /= d;
        for (int64_t j = 0; j < d; ++j) {
            const double xv = x[size_t(i * d + j)];
            EXPECT_NEAR(rms[size_t(i * d + j)], w[size_t(j)] * xv / std::sqrt(ss / d + 1e-6), 1e-6);
            EXPECT_NEAR(ln[size_t(i * d + j)],
                        (xv - mean) / std::sqrt(var + 1e-5) * w[size_t(j)] + b[size_t(j)], 1e-5);
        }
    }
}

// Split over threads (a batched step's sizes and beyond), each row and value is what the
// single-threaded op gives, bit for bit.
TEST(SharedOps, ThreadedNormAndSiluEqualTheSingleThreadedOps) {
    std::mt19937 rng(6);
    ThreadPool pool(2);
    const backend::ExecContext ctx{backend::KernelSet::fast, &pool};
    for (const auto& [n, d] : {std::pair<int64_t, int64_t>{8, 1024}, {128, 128}, {3, 96}}) {
        const auto x = random_vec(size_t(n * d), rng), w = random_vec(size_t(d), rng);
        std::vector<float> one(size_t(n * d)), split(one.size());
        backend::rms_norm(x.data(), w.data(), n, d, 1e-6f, one.data());
        backend::rms_norm(ctx, x.data(), w.data(), n, d, 1e-6f, split.data());
        EXPECT_EQ(0, std::memcmp(one.data(), split.data(), one.size() * 4)) << n << "x" << d;
    }
    for (const int64_t n : {int64_t(100), int64_t(24576), int64_t(40001)}) {
        const auto g = random_vec(size_t(n), rng), u = random_vec(size_t(n), rng);
        std::vector<float> one(g.size()), split = g;
        backend::silu_mul(g.data(), u.data(), n, one.data());
        backend::silu_mul(ctx, split.data(), u.data(), n, split.data());  // in place, as used
        EXPECT_EQ(0, std::memcmp(one.data(), split.data(), one.size() * 4)) << n;
    }
}

TEST(SharedOps, Conv1dOnPreparedWeightsMatchesTorchLayoutInBothKernelSets) {
    std::mt19937 rng(11);
    ThreadPool pool(2);
    const int c_out = 40, c_in = 19, k = 7, dil = 3;
    const int64_t rows = 57, hist = int64_t(k - 1) * dil;
    const auto w = random_vec(size_t(c_out * c_in * k), rng), bias = random_vec(size_t(c_out), rng);
    const auto x = random_vec(size_t((hist + rows) * c_in), rng);
    std::vector<float> expected(size_t(rows * c_out));
    ref::conv1d(x.data(), c_in, rows, w.data(), bias.data(), c_out, c_in, k, dil, expected.data(),
                c_out, false);
    const backend::ConvWeights prepared =
        backend::prepare_conv1d(w.data(), c_out, c_in, k, dil, bias.data());
    for (auto kernels : {backend::KernelSet::reference, backend::KernelSet::fast}) {
        std::vector<float> y(size_t(rows * c_out), 0.5f);
        backend::conv1d({kernels, &pool}, prepared, x.data(), c_in, rows, y.data(), c_out, true);
        for (size_t i = 0; i < y.size(); ++i) EXPECT_NEAR(y[i], expected[i] + 0.5f, 1e-5) << i;
    }
}

}  // namespace
}  // namespace qwen3tts
