#include "nn/codec_transformer_layer.hpp"

#include <algorithm>
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

void CodecTransformerLayer::load(const WeightMap& weights, const std::string& prefix,
                                 const CodecTransformerShape& s) {
    s_ = s;
    const int h = s.hidden, qd = s.q_dim(), kvd = s.kv_dim(), inter = s.intermediate;
    in_norm_ = load_f32(weights, prefix + ".input_layernorm.weight", {h});
    post_norm_ = load_f32(weights, prefix + ".post_attention_layernorm.weight", {h});
    attn_scale_ = load_f32(weights, prefix + ".self_attn_layer_scale.scale", {h});
    mlp_scale_ = load_f32(weights, prefix + ".mlp_layer_scale.scale", {h});
    qkv_ = load_stacked_linear(
        weights,
        {prefix + ".self_attn.q_proj.weight", prefix + ".self_attn.k_proj.weight",
         prefix + ".self_attn.v_proj.weight"},
        {qd, kvd, kvd}, h);
    const auto wo = load_f32(weights, prefix + ".self_attn.o_proj.weight", {h, qd});
    o_ = backend::prepare_linear(wo.data(), h, qd, nullptr);
    gate_up_ = load_stacked_linear(
        weights, {prefix + ".mlp.gate_proj.weight", prefix + ".mlp.up_proj.weight"}, {inter, inter},
        h);
    const auto wd = load_f32(weights, prefix + ".mlp.down_proj.weight", {h, inter});
    down_ = backend::prepare_linear(wd.data(), h, inter, nullptr);
}

size_t CodecTransformerLayer::scratch_floats(const CodecTransformerShape& s, int64_t n_rows) {
    const size_t qkv = size_t(s.q_dim() + 2 * s.kv_dim());
    const size_t att = size_t(s.q_dim());
    const size_t mlp = size_t(2 * s.intermediate);
    // a [hidden] + max(qkv + att, mlp) + out [hidden] per row
    return size_t(n_rows) * (2 * size_t(s.hidden) + std::max(qkv + att, mlp));
}

double CodecTransformerLayer::flops(int64_t n_rows) const {
    return qkv_.flops(n_rows) + o_.flops(n_rows) + gate_up_.flops(n_rows) + down_.flops(n_rows) +
           4.0 * double(n_rows) * s_.window * s_.q_dim();
}

void CodecTransformerLayer::forward(float* u, int64_t n_rows, int64_t pos0, const float* cos,
                                    const float* sin, SlidingKv& kv, float* scratch,
                                    const backend::ExecContext& ctx) const {
    QWEN3TTS_ASSERT(n_rows <= kv.max_rows);
    QWEN3TTS_ASSERT(kv.n_cached == std::min<int64_t>(pos0, s_.window - 1));
    const int h = s_.hidden, qd = s_.q_dim(), kvd = s_.kv_dim(), hd = s_.head_dim;
    const int qkv_w = qd + 2 * kvd;
    float* a = scratch;                     // [n, hidden]
    float* out = a + size_t(n_rows) * h;    // [n, hidden]
    float* big = out + size_t(n_rows) * h;  // qkv [n, qkv_w] + att [n, qd] | mlp
    float* qkv = big;
    float* att = big + size_t(n_rows) * qkv_w;

    // --- attention ---
    backend::rms_norm(u, in_norm_.data(), n_rows, h, s_.eps, a);
    backend::conv1d(ctx, qkv_, a, h, n_rows, qkv, qkv_w, false);
    backend::rope(qkv, n_rows, qkv_w, s_.n_head, hd, cos, sin);
    backend::rope(qkv + qd, n_rows, qkv_w, s_.n_head_kv, hd, cos, sin);
    const int64_t base = kv.n_cached;  // cache row of position pos0
    for (int64_t t = 0; t < n_rows; ++t) {
        const float* k = qkv + t * qkv_w + qd;
        std::memcpy(kv.k.data() + size_t(base + t) * kvd, k, sizeof(float) * size_t(kvd));
        std::memcpy(kv.v.data() + size_t(base + t) * kvd, k + kvd, sizeof(float) * size_t(kvd));
    }
    backend::attention(ctx, qkv, qkv_w, kv.k.data(), kv.v.data(), kvd, n_rows, base,
                       {s_.n_head, s_.n_head_kv, hd, s_.window}, att, qd);
    // Keep the last window-1 positions for the next call.
    const int64_t total = base + n_rows;
    const int64_t keep = std::min<int64_t>(total, s_.window - 1);
    if (keep > 0 && total > keep) {
        std::memmove(kv.k.data(), kv.k.data() + size_t(total - keep) * kvd,
                     sizeof(float) * size_t(keep) * kvd);
        std::memmove(kv.v.data(), kv.v.data() + size_t(total - keep) * kvd,
                     sizeof(float) * size_t(keep) * kvd);
    }
    kv.n_cached = keep;

    backend::conv1d(ctx, o_, att, qd, n_rows, out, h, false);
    backend::add_scaled_rows(u, out, attn_scale_.data(), n_rows, h);

    // --- SwiGLU MLP ---
    backend::rms_norm(u, post_norm_.data(), n_rows, h, s_.eps, a);
    float* gu = big;  // [n, 2·intermediate]: gate then up per row
    const int inter = s_.intermediate;
    backend::conv1d(ctx, gate_up_, a, h, n_rows, gu, 2 * inter, false);
    for (int64_t t = 0; t < n_rows; ++t)
        backend::silu_mul(gu + t * 2 * inter, gu + t * 2 * inter + inter, inter,
                          gu + t * 2 * inter);
    backend::conv1d(ctx, down_, gu, 2 * inter, n_rows, out, h, false);
    backend::add_scaled_rows(u, out, mlp_scale_.data(), n_rows, h);
}

}  // namespace qwen3tts
