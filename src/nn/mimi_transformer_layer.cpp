#include "nn/mimi_transformer_layer.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "nn/codec_weights.hpp"

namespace qwen3tts {

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
    qkv_ = load_stacked_linear(
        weights,
        {prefix + ".self_attn.q_proj.weight", prefix + ".self_attn.k_proj.weight",
         prefix + ".self_attn.v_proj.weight"},
        {qd, kvd, kvd}, h);
    o_ = load_linear(weights, prefix + ".self_attn.o_proj.weight", h, qd);
    fc1_ = load_linear(weights, prefix + ".mlp.fc1.weight", inter, h);
    fc2_ = load_linear(weights, prefix + ".mlp.fc2.weight", h, inter);
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

void MimiTransformerLayer::forward(float* x, int64_t n, const float* cos, const float* sin,
                                   float* scratch, const backend::ExecContext& ctx) const {
    const int h = s_.hidden, qd = s_.q_dim(), kvd = s_.kv_dim(), hd = s_.head_dim;
    const int qkv_w = qd + 2 * kvd;
    const int inter = s_.intermediate;
    float* a = scratch;                // [n, hidden]
    float* out = a + size_t(n) * h;    // [n, hidden]
    float* big = out + size_t(n) * h;  // qkv [n, qkv_w] + att [n, qd] | mlp [n, inter]
    float* qkv = big;
    float* att = big + size_t(n) * qkv_w;

    // --- attention ---
    backend::layer_norm(x, in_norm_w_.data(), in_norm_b_.data(), n, h, s_.eps, a);
    backend::conv1d(ctx, qkv_, a, h, n, qkv, qkv_w, false);
    backend::rope(qkv, n, qkv_w, s_.n_head, hd, cos, sin);
    backend::rope(qkv + qd, n, qkv_w, s_.n_head_kv, hd, cos, sin);
    backend::attention(ctx, qkv, qkv_w, qkv + qd, qkv + qd + kvd, qkv_w, n, 0,
                       {s_.n_head, s_.n_head_kv, hd, s_.window}, att, qd);
    backend::conv1d(ctx, o_, att, qd, n, out, h, false);
    backend::add_scaled_rows(x, out, attn_scale_.data(), n, h);

    // --- MLP: fc2(gelu(fc1(LayerNorm(x)))) ---
    backend::layer_norm(x, post_norm_w_.data(), post_norm_b_.data(), n, h, s_.eps, a);
    float* mid = big;  // [n, inter]
    backend::conv1d(ctx, fc1_, a, h, n, mid, inter, false);
    backend::gelu_erf_inplace(mid, n * inter);
    backend::conv1d(ctx, fc2_, mid, inter, n, out, h, false);
    backend::add_scaled_rows(x, out, mlp_scale_.data(), n, h);
}

}  // namespace qwen3tts
