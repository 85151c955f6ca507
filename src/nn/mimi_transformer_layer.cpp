#include "nn/mimi_transformer_layer.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/error.hpp"
#include "core/thread_pool.hpp"
#include "nn/codec_weights.hpp"

namespace qwen3tts {

namespace {

constexpr int64_t kQueryBlock = 128;  // queries per attention GEMM block

// x' = x·cos + rotate_half(x)·sin, rotate_half([x1, x2]) = [-x2, x1].
void apply_rope(float* x, const float* cos, const float* sin, int head_dim) {
    const int half = head_dim / 2;
    for (int i = 0; i < half; ++i) {
        const float x1 = x[i], x2 = x[i + half];
        x[i] = x1 * cos[i] - x2 * sin[i];
        x[i + half] = x2 * cos[i + half] + x1 * sin[i + half];
    }
}

}  // namespace

void mimi_layer_norm(const float* x, int64_t n_rows, int dim, const float* w, const float* b,
                     float eps, float* y) {
    for (int64_t t = 0; t < n_rows; ++t) {
        const float* xr = x + t * dim;
        float* yr = y + t * dim;
        double sum = 0;
        for (int c = 0; c < dim; ++c) sum += xr[c];
        const double mean = sum / dim;
        double ss = 0;
        for (int c = 0; c < dim; ++c) ss += (xr[c] - mean) * (xr[c] - mean);
        const float rstd = float(1.0 / std::sqrt(ss / dim + double(eps)));
        const float m = float(mean);
        for (int c = 0; c < dim; ++c) yr[c] = (xr[c] - m) * rstd * w[c] + b[c];
    }
}

void MimiTransformerLayer::load(const WeightMap& weights, const std::string& prefix,
                                const MimiTransformerShape& s) {
    s_ = s;
    const int h = s.hidden, qd = s.q_dim(), kvd = s.kv_dim(), inter = s.intermediate;
    in_norm_w_ = load_f32(weights, prefix + ".input_layernorm.weight", {h});
    in_norm_b_ = load_f32(weights, prefix + ".input_layernorm.bias", {h});
    post_norm_w_ = load_f32(weights, prefix + ".post_attention_layernorm.weight", {h});
    post_norm_b_ = load_f32(weights, prefix + ".post_attention_layernorm.bias", {h});
    attn_scale_ = load_f32(weights, prefix + ".self_attn_layer_scale.scale", {h});
    mlp_scale_ = load_f32(weights, prefix + ".mlp_layer_scale.scale", {h});
    qkv_ = load_stacked_linear(weights,
                               {prefix + ".self_attn.q_proj.weight", prefix + ".self_attn.k_proj.weight",
                                prefix + ".self_attn.v_proj.weight"},
                               {qd, kvd, kvd}, h);
    const auto wo = load_f32(weights, prefix + ".self_attn.o_proj.weight", {h, qd});
    o_ = cpu::pack_linear(wo.data(), h, qd, nullptr);
    const auto w1 = load_f32(weights, prefix + ".mlp.fc1.weight", {inter, h});
    fc1_ = cpu::pack_linear(w1.data(), inter, h, nullptr);
    const auto w2 = load_f32(weights, prefix + ".mlp.fc2.weight", {h, inter});
    fc2_ = cpu::pack_linear(w2.data(), h, inter, nullptr);
}

size_t MimiTransformerLayer::scratch_floats(const MimiTransformerShape& s, int64_t n_rows) {
    const size_t qkv = size_t(s.q_dim() + 2 * s.kv_dim());
    // a [hidden] + out [hidden] + max(qkv + att, mlp) per row
    return size_t(n_rows) *
           (2 * size_t(s.hidden) + std::max(qkv + size_t(s.q_dim()), size_t(s.intermediate)));
}

double MimiTransformerLayer::flops(int64_t n_rows) const {
    const double span =
        s_.window > 0 ? std::min<double>(double(n_rows), s_.window) : double(n_rows) / 2;
    return qkv_.flops(n_rows) + o_.flops(n_rows) + fc1_.flops(n_rows) + fc2_.flops(n_rows) +
           4.0 * double(n_rows) * span * s_.q_dim();
}

// Causal attention per head as two GEMMs per block of queries: S = Q·Kᵀ over the keys the
// block can see, masked softmax (f32), then O = P·V. Heads run in parallel.
void MimiTransformerLayer::attention(const float* qkv, int64_t n, float* att,
                                     ThreadPool* pool) const {
    const int qd = s_.q_dim(), kvd = s_.kv_dim(), hd = s_.head_dim;
    const int64_t ld = qd + 2 * kvd;
    const int group = s_.n_head / s_.n_head_kv;
    const float scale = 1.0f / std::sqrt(float(hd));
    const int64_t window = s_.window;

    auto run = [&](int64_t h_begin, int64_t h_end) {
        std::vector<float> kh(size_t(n) * hd), vt, scores;
        for (int64_t hh = h_begin; hh < h_end; ++hh) {
            const int kvh = int(hh) / group;
            const float* k = qkv + qd + int64_t(kvh) * hd;
            const float* v = qkv + qd + kvd + int64_t(kvh) * hd;
            for (int64_t j = 0; j < n; ++j)
                std::memcpy(kh.data() + j * hd, k + j * ld, sizeof(float) * size_t(hd));
            for (int64_t q0 = 0; q0 < n; q0 += kQueryBlock) {
                const int64_t q1 = std::min(n, q0 + kQueryBlock);
                const int64_t k_lo = window > 0 ? std::max<int64_t>(0, q0 - window + 1) : 0;
                const int64_t nk = q1 - k_lo;
                const int64_t nq = q1 - q0;
                // S [nq, nk] = Q_block · K[k_lo:q1]ᵀ
                const cpu::PackedConv pk =
                    cpu::pack_linear(kh.data() + k_lo * hd, int(nk), hd, nullptr);
                scores.resize(size_t(nq * nk));
                cpu::conv1d_gemm(pk, qkv + q0 * ld + hh * hd, ld, nq, scores.data(), nk, false,
                                 nullptr);
                for (int64_t i = 0; i < nq; ++i) {
                    const int64_t qpos = q0 + i;
                    const int64_t lo =
                        (window > 0 ? std::max<int64_t>(0, qpos - window + 1) : 0) - k_lo;
                    const int64_t hi = qpos - k_lo;  // inclusive
                    float* s = scores.data() + i * nk;
                    float mx = -INFINITY;
                    for (int64_t j = lo; j <= hi; ++j) {
                        s[j] *= scale;
                        mx = std::max(mx, s[j]);
                    }
                    float sum = 0.0f;
                    for (int64_t j = lo; j <= hi; ++j) {
                        s[j] = std::exp(s[j] - mx);
                        sum += s[j];
                    }
                    const float inv = 1.0f / sum;
                    for (int64_t j = 0; j < lo; ++j) s[j] = 0.0f;
                    for (int64_t j = lo; j <= hi; ++j) s[j] *= inv;
                    for (int64_t j = hi + 1; j < nk; ++j) s[j] = 0.0f;
                }
                // O [nq, hd] = P · V[k_lo:q1]; the packed weight is Vᵀ [hd, nk].
                vt.resize(size_t(hd * nk));
                for (int64_t j = 0; j < nk; ++j)
                    for (int c = 0; c < hd; ++c) vt[size_t(c * nk + j)] = v[(k_lo + j) * ld + c];
                const cpu::PackedConv pv = cpu::pack_linear(vt.data(), hd, int(nk), nullptr);
                cpu::conv1d_gemm(pv, scores.data(), nk, nq, att + q0 * qd + hh * hd, qd, false,
                                 nullptr);
            }
        }
    };
    if (pool && pool->size() > 1)
        pool->parallel_for(s_.n_head, 1, run);
    else
        run(0, s_.n_head);
}

void MimiTransformerLayer::forward(float* x, int64_t n, const float* cos, const float* sin,
                                   float* scratch, ThreadPool* pool) const {
    const int h = s_.hidden, qd = s_.q_dim(), kvd = s_.kv_dim(), hd = s_.head_dim;
    const int qkv_w = qd + 2 * kvd;
    const int inter = s_.intermediate;
    float* a = scratch;                // [n, hidden]
    float* out = a + size_t(n) * h;    // [n, hidden]
    float* big = out + size_t(n) * h;  // qkv [n, qkv_w] + att [n, qd] | mlp [n, inter]
    float* qkv = big;
    float* att = big + size_t(n) * qkv_w;

    // --- attention ---
    mimi_layer_norm(x, n, h, in_norm_w_.data(), in_norm_b_.data(), s_.eps, a);
    cpu::conv1d_gemm(qkv_, a, h, n, qkv, qkv_w, false, pool);
    for (int64_t t = 0; t < n; ++t) {
        float* q = qkv + t * qkv_w;
        float* k = q + qd;
        for (int hh = 0; hh < s_.n_head; ++hh)
            apply_rope(q + hh * hd, cos + t * hd, sin + t * hd, hd);
        for (int hh = 0; hh < s_.n_head_kv; ++hh)
            apply_rope(k + hh * hd, cos + t * hd, sin + t * hd, hd);
    }
    attention(qkv, n, att, pool);
    cpu::conv1d_gemm(o_, att, qd, n, out, h, false, pool);
    for (int64_t t = 0; t < n; ++t)
        for (int c = 0; c < h; ++c) x[t * h + c] += attn_scale_[size_t(c)] * out[t * h + c];

    // --- MLP: fc2(gelu(fc1(LayerNorm(x)))) ---
    mimi_layer_norm(x, n, h, post_norm_w_.data(), post_norm_b_.data(), s_.eps, a);
    float* mid = big;  // [n, inter]
    cpu::conv1d_gemm(fc1_, a, h, n, mid, inter, false, pool);
    const float inv_sqrt2 = 0.70710678118654752440f;
    for (int64_t i = 0; i < n * inter; ++i)
        mid[i] = 0.5f * mid[i] * (1.0f + std::erf(mid[i] * inv_sqrt2));
    cpu::conv1d_gemm(fc2_, mid, inter, n, out, h, false, pool);
    for (int64_t t = 0; t < n; ++t)
        for (int c = 0; c < h; ++c) x[t * h + c] += mlp_scale_[size_t(c)] * out[t * h + c];
}

}  // namespace qwen3tts
