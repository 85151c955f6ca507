// Ops whose cost is negligible next to the weight reads: one plain implementation serves both
// kernel sets (the reference is the implementation).
#include <algorithm>
#include <cmath>
#include <vector>

#include "backend/ops.hpp"
#include "core/error.hpp"

namespace qwen3tts::backend {

void embedding_rows(const TensorView& table, const int32_t* ids, int64_t n, float* out) {
    const int64_t rows = table.dim(0), d = table.dim(1);
    for (int64_t i = 0; i < n; ++i) {
        if (ids[i] < 0 || ids[i] >= rows)
            throw Error(ErrorCode::invalid_argument,
                        "id " + std::to_string(ids[i]) + " is outside embedding " + table.name +
                            " (" + std::to_string(rows) + " rows)");
        for (int64_t j = 0; j < d; ++j) out[i * d + j] = table.at_f32(int64_t(ids[i]) * d + j);
    }
}

void embedding_add_row(const TensorView& table, int64_t id, float* out) {
    const int64_t rows = table.dim(0), d = table.dim(1);
    if (id < 0 || id >= rows)
        throw Error(ErrorCode::invalid_argument, "id " + std::to_string(id) +
                                                     " is outside embedding " + table.name);
    for (int64_t j = 0; j < d; ++j) out[j] += table.at_f32(id * d + j);
}

void rms_norm(const float* x, const float* w, int64_t n, int64_t d, float eps, float* y) {
    for (int64_t i = 0; i < n; ++i) {
        const float* xi = x + i * d;
        float* yi = y + i * d;
        float ss = 0.0f;
        for (int64_t j = 0; j < d; ++j) ss += xi[j] * xi[j];
        const float inv = 1.0f / std::sqrt(ss / float(d) + eps);
        for (int64_t j = 0; j < d; ++j) yi[j] = w[j] * (xi[j] * inv);
    }
}

void silu_mul(const float* gate, const float* up, int64_t n, float* out) {
    for (int64_t i = 0; i < n; ++i) {
        const float g = gate[i];
        out[i] = g / (1.0f + std::exp(-g)) * up[i];
    }
}

void silu_inplace(float* x, int64_t n) {
    for (int64_t i = 0; i < n; ++i) x[i] = x[i] / (1.0f + std::exp(-x[i]));
}

void add_inplace(float* y, const float* x, int64_t n) {
    for (int64_t i = 0; i < n; ++i) y[i] += x[i];
}

void rope_inplace(float* x, int64_t n, int64_t n_head, int64_t head_dim, int64_t pos0,
                  const float* cos_table, const float* sin_table) {
    const int64_t half = head_dim / 2;
    for (int64_t i = 0; i < n; ++i) {
        const float* c = cos_table + (pos0 + i) * half;
        const float* s = sin_table + (pos0 + i) * half;
        for (int64_t h = 0; h < n_head; ++h) {
            float* v = x + (i * n_head + h) * head_dim;
            for (int64_t j = 0; j < half; ++j) {
                const float a = v[j], b = v[j + half];
                v[j] = a * c[j] - b * s[j];
                v[j + half] = b * c[j] + a * s[j];
            }
        }
    }
}

void attention(const ExecContext& ctx, const float* q, const float* k_cache,
               const float* v_cache, int64_t n, int64_t pos0, int64_t n_head, int64_t n_kv,
               int64_t head_dim, float* out) {
    const int64_t group = n_head / n_kv;
    const float scale = 1.0f / std::sqrt(float(head_dim));
    const int64_t kv_stride = n_kv * head_dim;
    auto run = [&](int64_t begin, int64_t end) {
        // Grows to the longest context seen, then stays: no allocation in the steady state.
        thread_local std::vector<float> scores;
        if (scores.size() < size_t(pos0 + n)) scores.resize(size_t(pos0 + n) * 2);
        for (int64_t task = begin; task < end; ++task) {
            const int64_t i = task / n_head, h = task % n_head, kvh = h / group;
            const float* qi = q + (i * n_head + h) * head_dim;
            const int64_t len = pos0 + i + 1;  // causal: keys 0..pos0+i
            float mx = -INFINITY;
            for (int64_t t = 0; t < len; ++t) {
                const float* kt = k_cache + t * kv_stride + kvh * head_dim;
                float dot = 0.0f;
                for (int64_t j = 0; j < head_dim; ++j) dot += qi[j] * kt[j];
                scores[size_t(t)] = dot * scale;
                mx = std::max(mx, scores[size_t(t)]);
            }
            float sum = 0.0f;
            for (int64_t t = 0; t < len; ++t) {
                scores[size_t(t)] = std::exp(scores[size_t(t)] - mx);
                sum += scores[size_t(t)];
            }
            float* o = out + (i * n_head + h) * head_dim;
            std::fill(o, o + head_dim, 0.0f);
            for (int64_t t = 0; t < len; ++t) {
                const float p = scores[size_t(t)] / sum;
                const float* vt = v_cache + t * kv_stride + kvh * head_dim;
                for (int64_t j = 0; j < head_dim; ++j) o[j] += p * vt[j];
            }
        }
    };
    if (ctx.pool && ctx.kernels == KernelSet::fast) ctx.pool->parallel_for(n * n_head, 1, run);
    else run(0, n * n_head);
}

}  // namespace qwen3tts::backend
