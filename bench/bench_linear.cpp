// The decode-time linears and decoder steps against the machine's read bandwidth: the floor of
// every talker and code-predictor step. Every timing is taken in rounds that alternate the
// kernel with a multi-threaded read of the same bytes (the loop of `bench`'s read probe,
// backend::read_like_probe), so that a busy machine slows both alike and their ratio stays
// meaningful; medians.
//   bench_linear [threads] [--shapes] [--steps] [--n N] [--only NAME]
// (both parts when neither is named; --n: only that number of rows; --only: only the shapes or
// components whose name starts with NAME)
// --shapes: per model shape and n (rows of x = streams stepped at once), GB/s of weight bytes
//   for bf16, q8 and q4, and the share of the plain read of the same bytes.
// --steps: one decoder step per component (talker, code predictor) replayed with the backend
//   ops in the order the decoder stack calls them, with a timer per op: ms per frame per op
//   kind against the floor (weight bytes over the plain read measured in the same rounds).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "backend/cpu/linear_cpu.hpp"
#include "backend/cpu/linear_quant_cpu.hpp"
#include "backend/machine_probe.hpp"
#include "backend/ops.hpp"
#include "core/dtype.hpp"

using namespace qwen3tts;
using backend::LinearWeights;
using backend::QuantFormat;

namespace {

int64_t g_only_n = 0;          // --n
const char* g_only = nullptr;  // --only

bool selected(const char* name, int64_t n) {
    return (g_only_n == 0 || n == g_only_n) &&
           (!g_only || std::strncmp(name, g_only, std::strlen(g_only)) == 0);
}

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}

std::vector<uint16_t> random_bf16(size_t count, uint32_t seed, float scale) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> dist(0.0f, scale);
    std::vector<uint16_t> v(count);
    for (auto& x : v) x = f32_to_bf16(dist(rng));
    return v;
}

const char* kFormats[] = {"bf16", "q8", "q4"};

// One matrix in the three formats: the bf16 storage and its quantized copies.
struct Matrix {
    std::vector<uint16_t> bf16;
    LinearWeights w[3];
    Matrix(int64_t out, int64_t in, uint32_t seed, ThreadPool* pool)
        : bf16(random_bf16(size_t(out * in), seed, 1.0f / 32)) {
        const TensorView v{"w", DType::bf16, {out, in}, bf16.data()};
        w[0] = LinearWeights(v);
        w[1] = LinearWeights(v, QuantFormat::q8, pool);
        w[2] = LinearWeights(v, QuantFormat::q4, pool);
    }
    // The bytes format f reads (one contiguous buffer each for codes and scales).
    void read(ThreadPool& pool, int f) const {
        if (f == 0) {
            backend::read_like_probe(pool, bf16.data(), bf16.size() * 2);
        } else {
            const backend::QuantizedWeights& q = *w[f].quantized();
            backend::read_like_probe(pool, q.codes.data(), q.codes.size());
            backend::read_like_probe(pool, q.scales.data(), q.scales.size() * 2);
        }
    }
};

void bench_shapes(ThreadPool& pool) {
    struct Shape {
        const char* name;
        int64_t out, in;
    } shapes[] = {{"q 0.6B", 2048, 1024},    {"kv 0.6B", 1024, 1024},   {"gate 0.6B", 3072, 1024},
                  {"down 0.6B", 1024, 3072}, {"q 1.7B", 2048, 2048},    {"gate 1.7B", 6144, 2048},
                  {"down 1.7B", 2048, 6144}, {"lm_head cp", 2048, 1024}};
    const backend::ExecContext ctx{backend::KernelSet::fast, &pool};
    std::printf("%-11s %3s %-5s %8s %9s %9s %8s\n", "shape", "n", "type", "GB/s", "us/call",
                "read GB/s", "of read");
    for (const Shape& s : shapes) {
        if (!selected(s.name, g_only_n ? g_only_n : 1)) continue;
        // Enough copies to exceed the caches, cycled through.
        const size_t bytes = size_t(s.out * s.in) * 2;
        const int copies = int(std::max<size_t>(2, (size_t(160) << 20) / bytes));
        std::vector<Matrix> m;
        for (int c = 0; c < copies; ++c) m.emplace_back(s.out, s.in, uint32_t(c + 1), &pool);
        for (int64_t n : {1, 2, 4, 8, 16}) {
            if (!selected(s.name, n)) continue;
            std::vector<float> x(size_t(n * s.in)), y(size_t(n * s.out));
            std::mt19937 rng(7);
            std::normal_distribution<float> dist;
            for (auto& v : x) v = dist(rng);
            std::vector<double> t_kernel[3], t_read[3];
            const int rounds = 5 * copies;
            for (int r = 0; r < rounds; ++r) {
                const Matrix& a = m[size_t(r % copies)];
                const Matrix& b = m[size_t((r + copies / 2) % copies)];
                for (int f = 0; f < 3; ++f) {
                    auto t0 = Clock::now();
                    backend::linear(ctx, x.data(), n, a.w[f], nullptr, y.data());
                    t_kernel[f].push_back(seconds_since(t0));
                    t0 = Clock::now();
                    b.read(pool, f);
                    t_read[f].push_back(seconds_since(t0));
                }
            }
            for (int f = 0; f < 3; ++f) {
                const double nb = double(m[0].w[f].nbytes());
                const double tk = median(t_kernel[f]), tr = median(t_read[f]);
                std::printf("%-11s %3lld %-5s %8.1f %9.1f %9.1f %7.0f%%\n", s.name, (long long)n,
                            kFormats[f], nb / tk / 1e9, tk * 1e6, nb / tr / 1e9, 100 * tr / tk);
            }
        }
    }
}

// ---- One decoder step, op by op ----------------------------------------------------------------

struct StackShape {
    const char* name;
    int64_t d, ff, n_head, n_kv, hd, layers, distinct;  // `distinct` layers of weights, cycled
    int64_t steps, ctx0;  // steps per frame; context length at the first step (grows by one)
};

struct Layer {
    Matrix q, k, v, o, gate, up, down;
    std::vector<float> in_norm, post_norm, q_norm, k_norm;
    Layer(const StackShape& s, uint32_t seed, ThreadPool* pool)
        : q(s.n_head * s.hd, s.d, seed, pool),
          k(s.n_kv * s.hd, s.d, seed + 1, pool),
          v(s.n_kv * s.hd, s.d, seed + 2, pool),
          o(s.d, s.n_head * s.hd, seed + 3, pool),
          gate(s.ff, s.d, seed + 4, pool),
          up(s.ff, s.d, seed + 5, pool),
          down(s.d, s.ff, seed + 6, pool),
          in_norm(size_t(s.d), 1.0f),
          post_norm(size_t(s.d), 1.0f),
          q_norm(size_t(s.hd), 1.0f),
          k_norm(size_t(s.hd), 1.0f) {}
    size_t nbytes(int f) const {
        size_t b = 0;
        for (const Matrix* m : {&q, &k, &v, &o, &gate, &up, &down}) b += m->w[f].nbytes();
        return b;
    }
};

enum Op { kNorm, kQkv, kQkNormRope, kAttention, kO, kGateUp, kSiluMul, kDown, kAdd, kOps };
const char* kOpNames[kOps] = {"rms_norm", "qkv",     "qk norm+rope", "attention", "o",
                              "gate/up",  "silu*up", "down",         "add+copy"};

// Times of one frame of component s in format f with n streams, per op.
void step_frame(const StackShape& s, const std::vector<Layer>& layers, int f, int64_t n,
                ThreadPool& pool, double* op_s) {
    const backend::ExecContext ctx{backend::KernelSet::fast, &pool};
    const int64_t d = s.d, qd = s.n_head * s.hd, kvd = s.n_kv * s.hd, half = s.hd / 2;
    const int64_t max_ctx = s.ctx0 + s.steps;
    thread_local std::vector<float> x, norm, q, k, v, attn, proj, gate, up, kc, vc, cs, sn;
    x.assign(size_t(n * d), 0.5f);
    norm.resize(size_t(n * d));
    q.resize(size_t(n * qd));
    k.resize(size_t(n * kvd));
    v.resize(size_t(n * kvd));
    attn.resize(size_t(n * qd));
    proj.resize(size_t(n * d));
    gate.resize(size_t(n * s.ff));
    up.resize(size_t(n * s.ff));
    // One stream's cache (all n rows attend to it: the same work as n caches of that length).
    kc.assign(size_t(max_ctx * kvd), 0.01f);
    vc.assign(size_t(max_ctx * kvd), 0.01f);
    cs.assign(size_t(n * half), 1.0f);
    sn.assign(size_t(n * half), 0.0f);
    auto timed = [&](Op op, auto&& fn) {
        const auto t0 = Clock::now();
        fn();
        op_s[op] += seconds_since(t0);
    };
    for (int64_t step = 0; step < s.steps; ++step) {
        const int64_t pos = s.ctx0 + step;
        for (int64_t il = 0; il < s.layers; ++il) {
            const Layer& l = layers[size_t(il % s.distinct)];
            timed(kNorm,
                  [&] { backend::rms_norm(x.data(), l.in_norm.data(), n, d, 1e-6f, norm.data()); });
            timed(kQkv, [&] {
                const LinearWeights* ws[3] = {&l.q.w[f], &l.k.w[f], &l.v.w[f]};
                float* ys[3] = {q.data(), k.data(), v.data()};
                backend::linear_group(ctx, norm.data(), n, ws, ys, 3);
            });
            timed(kQkNormRope, [&] {
                backend::rms_norm(q.data(), l.q_norm.data(), n * s.n_head, s.hd, 1e-6f, q.data());
                backend::rms_norm(k.data(), l.k_norm.data(), n * s.n_kv, s.hd, 1e-6f, k.data());
                backend::rope(q.data(), n, qd, s.n_head, s.hd, cs.data(), sn.data());
                backend::rope(k.data(), n, kvd, s.n_kv, s.hd, cs.data(), sn.data());
            });
            timed(kAdd, [&] {
                std::memcpy(kc.data() + (pos - 1) * kvd, k.data(), size_t(kvd) * 4);
                std::memcpy(vc.data() + (pos - 1) * kvd, v.data(), size_t(kvd) * 4);
            });
            timed(kAttention, [&] {
                // n rows at the last position: n streams of context `pos` each.
                for (int64_t i = 0; i < n; ++i)
                    backend::attention(ctx, q.data() + i * qd, qd, kc.data(), vc.data(), kvd, 1,
                                       pos - 1, {s.n_head, s.n_kv, s.hd, 0}, attn.data() + i * qd,
                                       qd);
            });
            timed(kO,
                  [&] { backend::linear(ctx, attn.data(), n, l.o.w[f], nullptr, proj.data()); });
            timed(kAdd, [&] { backend::add_inplace(x.data(), proj.data(), n * d); });
            timed(kNorm, [&] {
                backend::rms_norm(x.data(), l.post_norm.data(), n, d, 1e-6f, norm.data());
            });
            timed(kGateUp, [&] {
                const LinearWeights* ws[2] = {&l.gate.w[f], &l.up.w[f]};
                float* ys[2] = {gate.data(), up.data()};
                backend::linear_group(ctx, norm.data(), n, ws, ys, 2);
            });
            timed(kSiluMul,
                  [&] { backend::silu_mul(gate.data(), up.data(), n * s.ff, gate.data()); });
            timed(kDown,
                  [&] { backend::linear(ctx, gate.data(), n, l.down.w[f], nullptr, proj.data()); });
            timed(kAdd, [&] { backend::add_inplace(x.data(), proj.data(), n * d); });
        }
    }
}

void bench_steps(ThreadPool& pool, int threads) {
    // The 0.6B talker (28 layers, 8 distinct to stay far beyond the caches), its code
    // predictor (5 layers, 15 steps per frame over a context of 2..16), the 1.7B talker.
    const StackShape stacks[] = {{"talker 0.6B", 1024, 3072, 16, 8, 128, 28, 8, 1, 64},
                                 {"predictor", 1024, 3072, 16, 8, 128, 5, 5, 15, 2},
                                 {"talker 1.7B", 2048, 6144, 16, 8, 128, 28, 4, 1, 64}};
    {  // the cost of one parallel region that does nothing: the hand-off
        std::vector<double> t;
        for (int r = 0; r < 2001; ++r) {
            const auto t0 = Clock::now();
            pool.parallel_for(threads, 1, [](int64_t, int64_t) {});
            t.push_back(seconds_since(t0));
        }
        std::printf("empty parallel region: %.2f us (median, %d threads)\n\n", median(t) * 1e6,
                    threads);
    }
    for (const StackShape& s : stacks) {
        if (!selected(s.name, g_only_n ? g_only_n : 1)) continue;
        std::vector<Layer> layers;
        for (int64_t i = 0; i < s.distinct; ++i)
            layers.emplace_back(s, uint32_t(100 + 10 * i), &pool);
        for (int f = 0; f < 3; ++f) {
            size_t frame_bytes = 0;
            for (int64_t il = 0; il < s.layers; ++il)
                frame_bytes += layers[size_t(il % s.distinct)].nbytes(f);
            frame_bytes *= size_t(s.steps);
            for (int64_t n : {1, 4, 8, 16}) {
                if (!selected(s.name, n)) continue;
                const int reps = 7;
                std::vector<double> per_op[kOps], total, read;
                for (int r = 0; r < reps; ++r) {
                    double op_s[kOps] = {};
                    step_frame(s, layers, f, n, pool, op_s);
                    double sum = 0;
                    for (int o = 0; o < kOps; ++o) {
                        per_op[o].push_back(op_s[o]);
                        sum += op_s[o];
                    }
                    total.push_back(sum);
                    // The floor of this frame in the same round: every layer's bytes read.
                    const auto t0 = Clock::now();
                    for (int64_t st = 0; st < s.steps; ++st)
                        for (int64_t il = 0; il < s.layers; ++il) {
                            const Layer& l = layers[size_t(il % s.distinct)];
                            for (const Matrix* m :
                                 {&l.q, &l.k, &l.v, &l.o, &l.gate, &l.up, &l.down})
                                m->read(pool, f);
                        }
                    read.push_back(seconds_since(t0));
                }
                const double floor_s = median(read);
                std::printf(
                    "%-11s %-4s n=%-2lld frame %7.2f ms  floor %6.2f ms (%.0f GB/s)  %.2fx\n",
                    s.name, kFormats[f], (long long)n, median(total) * 1e3, floor_s * 1e3,
                    double(frame_bytes) / floor_s / 1e9, median(total) / floor_s);
                for (int o = 0; o < kOps; ++o)
                    std::printf("    %-13s %7.3f ms\n", kOpNames[o], median(per_op[o]) * 1e3);
            }
        }
    }
}

}  // namespace

int main(int argc, char** argv) {
    int threads = 2;
    bool shapes = false, steps = false;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--shapes") == 0)
            shapes = true;
        else if (std::strcmp(argv[i], "--steps") == 0)
            steps = true;
        else if (std::strcmp(argv[i], "--n") == 0 && i + 1 < argc)
            g_only_n = std::atoll(argv[++i]);
        else if (std::strcmp(argv[i], "--only") == 0 && i + 1 < argc)
            g_only = argv[++i];
        else
            threads = std::atoi(argv[i]);
    }
    if (!shapes && !steps) shapes = steps = true;
    ThreadPool pool(threads);
    std::printf("%d threads, linear isa %s, quantized kernel %s\n", threads,
                backend::linear_cpu_isa(), backend::linear_quant_cpu_kernel());
    if (shapes) bench_shapes(pool);
    if (steps) bench_steps(pool, threads);
    return 0;
}
