#include "nn/codec_transformer_layer.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/error.hpp"
#include "nn/codec_weights.hpp"

namespace qwen3tts {

void SlidingKv::reset(const CodecTransformerShape& s, int64_t max_rows_per_call) {
    max_rows = max_rows_per_call;
    const size_t n = size_t(s.window - 1 + max_rows) * size_t(s.kv_dim());
    k.assign(n, 0.0f);
    v.assign(n, 0.0f);
    n_cached = 0;
}

void codec_rope_tables(int64_t pos0, int64_t n_rows, int head_dim, float theta, float* cos_out,
                       float* sin_out) {
    const int half = head_dim / 2;
    for (int64_t t = 0; t < n_rows; ++t) {
        const float p = float(pos0 + t);
        for (int i = 0; i < half; ++i) {
            const float inv_freq = 1.0f / std::pow(theta, float(2 * i) / float(head_dim));
            const float ang = p * inv_freq;  // fp32 product, as in the reference
            const float c = float(std::cos(double(ang)));
            const float s = float(std::sin(double(ang)));
            cos_out[t * head_dim + i] = cos_out[t * head_dim + i + half] = c;
            sin_out[t * head_dim + i] = sin_out[t * head_dim + i + half] = s;
        }
    }
}

void codec_rms_norm(const float* x, int64_t n_rows, int dim, const float* w, float eps, float* y) {
    for (int64_t t = 0; t < n_rows; ++t) {
        const float* xr = x + t * dim;
        float* yr = y + t * dim;
        double ss = 0;
        for (int c = 0; c < dim; ++c) ss += double(xr[c]) * xr[c];
        const float inv = float(1.0 / std::sqrt(ss / dim + double(eps)));
        for (int c = 0; c < dim; ++c) yr[c] = w[c] * (xr[c] * inv);
    }
}

namespace {

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

void CodecTransformerLayer::load(const WeightMap& weights, const std::string& prefix,
                                 const CodecTransformerShape& s) {
    s_ = s;
    const int h = s.hidden, qd = s.q_dim(), kvd = s.kv_dim(), inter = s.intermediate;
    in_norm_ = load_f32(weights, prefix + ".input_layernorm.weight", {h});
    post_norm_ = load_f32(weights, prefix + ".post_attention_layernorm.weight", {h});
    attn_scale_ = load_f32(weights, prefix + ".self_attn_layer_scale.scale", {h});
    mlp_scale_ = load_f32(weights, prefix + ".mlp_layer_scale.scale", {h});
    qkv_ = load_stacked_linear(weights,
                               {prefix + ".self_attn.q_proj.weight", prefix + ".self_attn.k_proj.weight",
                                prefix + ".self_attn.v_proj.weight"},
                               {qd, kvd, kvd}, h);
    const auto wo = load_f32(weights, prefix + ".self_attn.o_proj.weight", {h, qd});
    o_ = cpu::pack_linear(wo.data(), h, qd, nullptr);
    gate_up_ = load_stacked_linear(
        weights, {prefix + ".mlp.gate_proj.weight", prefix + ".mlp.up_proj.weight"}, {inter, inter}, h);
    const auto wd = load_f32(weights, prefix + ".mlp.down_proj.weight", {h, inter});
    down_ = cpu::pack_linear(wd.data(), h, inter, nullptr);
}

size_t CodecTransformerLayer::scratch_floats(const CodecTransformerShape& s, int64_t n_rows) {
    const size_t qkv = size_t(s.q_dim() + 2 * s.kv_dim());
    const size_t att = size_t(s.q_dim());
    const size_t mlp = size_t(2 * s.intermediate);
    // a [hidden] + max(qkv + att, mlp) + out [hidden] per row, + scores [window]
    return size_t(n_rows) * (2 * size_t(s.hidden) + std::max(qkv + att, mlp)) +
           size_t(s.window + n_rows);
}

double CodecTransformerLayer::flops(int64_t n_rows) const {
    return qkv_.flops(n_rows) + o_.flops(n_rows) + gate_up_.flops(n_rows) + down_.flops(n_rows) +
           4.0 * double(n_rows) * s_.window * s_.q_dim();
}

void CodecTransformerLayer::forward(float* u, int64_t n_rows, int64_t pos0, const float* cos,
                                    const float* sin, SlidingKv& kv, float* scratch,
                                    ThreadPool* pool) const {
    QWEN3TTS_ASSERT(n_rows <= kv.max_rows);
    QWEN3TTS_ASSERT(kv.n_cached == std::min<int64_t>(pos0, s_.window - 1));
    const int h = s_.hidden, qd = s_.q_dim(), kvd = s_.kv_dim(), hd = s_.head_dim;
    const int qkv_w = qd + 2 * kvd;
    const int group = s_.n_head / s_.n_head_kv;
    float* a = scratch;                             // [n, hidden]
    float* out = a + size_t(n_rows) * h;            // [n, hidden]
    float* big = out + size_t(n_rows) * h;          // qkv [n, qkv_w] + att [n, qd] | mlp
    float* qkv = big;
    float* att = big + size_t(n_rows) * qkv_w;
    float* scores = big + size_t(n_rows) * std::max(qkv_w + qd, 2 * s_.intermediate);

    // --- attention ---
    codec_rms_norm(u, n_rows, h, in_norm_.data(), s_.eps, a);
    cpu::conv1d_gemm(qkv_, a, h, n_rows, qkv, qkv_w, false, pool);
    const int64_t base = kv.n_cached;  // cache row of position pos0
    for (int64_t t = 0; t < n_rows; ++t) {
        float* q = qkv + t * qkv_w;
        float* k = q + qd;
        const float* v = k + kvd;
        for (int hh = 0; hh < s_.n_head; ++hh) apply_rope(q + hh * hd, cos + t * hd, sin + t * hd, hd);
        for (int hh = 0; hh < s_.n_head_kv; ++hh) apply_rope(k + hh * hd, cos + t * hd, sin + t * hd, hd);
        std::memcpy(kv.k.data() + size_t(base + t) * kvd, k, sizeof(float) * size_t(kvd));
        std::memcpy(kv.v.data() + size_t(base + t) * kvd, v, sizeof(float) * size_t(kvd));
    }
    const float scale = 1.0f / std::sqrt(float(hd));
    for (int64_t t = 0; t < n_rows; ++t) {
        // Cache rows visible to query row t: positions max(0, p-window+1) .. p.
        const int64_t hi = base + t;
        const int64_t lo = std::max<int64_t>(0, hi - (s_.window - 1));
        for (int hh = 0; hh < s_.n_head; ++hh) {
            const float* q = qkv + t * qkv_w + hh * hd;
            const int kh = hh / group;
            float mx = -INFINITY;
            for (int64_t j = lo; j <= hi; ++j) {
                const float* kr = kv.k.data() + size_t(j) * kvd + kh * hd;
                float dot = 0.0f;
                for (int i = 0; i < hd; ++i) dot += q[i] * kr[i];
                scores[j - lo] = dot * scale;
                mx = std::max(mx, scores[j - lo]);
            }
            float sum = 0.0f;
            for (int64_t j = lo; j <= hi; ++j) {
                scores[j - lo] = std::exp(scores[j - lo] - mx);
                sum += scores[j - lo];
            }
            const float inv = 1.0f / sum;
            float* o = att + t * qd + hh * hd;
            for (int i = 0; i < hd; ++i) o[i] = 0.0f;
            for (int64_t j = lo; j <= hi; ++j) {
                const float p = scores[j - lo] * inv;
                const float* vr = kv.v.data() + size_t(j) * kvd + kh * hd;
                for (int i = 0; i < hd; ++i) o[i] += p * vr[i];
            }
        }
    }
    // Keep the last window-1 positions for the next call.
    const int64_t total = base + n_rows;
    const int64_t keep = std::min<int64_t>(total, s_.window - 1);
    if (keep > 0 && total > keep) {
        std::memmove(kv.k.data(), kv.k.data() + size_t(total - keep) * kvd, sizeof(float) * size_t(keep) * kvd);
        std::memmove(kv.v.data(), kv.v.data() + size_t(total - keep) * kvd, sizeof(float) * size_t(keep) * kvd);
    }
    kv.n_cached = keep;

    cpu::conv1d_gemm(o_, att, qd, n_rows, out, h, false, pool);
    for (int64_t t = 0; t < n_rows; ++t)
        for (int c = 0; c < h; ++c) u[t * h + c] += attn_scale_[size_t(c)] * out[t * h + c];

    // --- SwiGLU MLP ---
    codec_rms_norm(u, n_rows, h, post_norm_.data(), s_.eps, a);
    float* gu = big;  // [n, 2·intermediate]
    const int inter = s_.intermediate;
    cpu::conv1d_gemm(gate_up_, a, h, n_rows, gu, 2 * inter, false, pool);
    for (int64_t t = 0; t < n_rows; ++t) {
        float* g = gu + t * 2 * inter;
        const float* up = g + inter;
        for (int i = 0; i < inter; ++i) g[i] = g[i] / (1.0f + std::exp(-g[i])) * up[i];
    }
    cpu::conv1d_gemm(down_, gu, 2 * inter, n_rows, out, h, false, pool);
    for (int64_t t = 0; t < n_rows; ++t)
        for (int c = 0; c < h; ++c) u[t * h + c] += mlp_scale_[size_t(c)] * out[t * h + c];
}

}  // namespace qwen3tts
