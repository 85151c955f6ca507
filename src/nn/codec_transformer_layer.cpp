#include "nn/codec_transformer_layer.hpp"

#include <algorithm>
#include <array>
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
    o_ = load_linear(weights, prefix + ".self_attn.o_proj.weight", h, qd);
    gate_up_ = load_stacked_linear(
        weights, {prefix + ".mlp.gate_proj.weight", prefix + ".mlp.up_proj.weight"}, {inter, inter},
        h);
    down_ = load_linear(weights, prefix + ".mlp.down_proj.weight", h, inter);
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
    const CodecTransformerIo io{u, n_rows, pos0, cos, sin, &kv, scratch};
    forward_parts(&io, 1, ctx);
}

void CodecTransformerLayer::forward_parts(const CodecTransformerIo* io, int n,
                                          const backend::ExecContext& ctx) const {
    QWEN3TTS_ASSERT(n >= 0 && n <= kMaxBatchParts);
    const int h = s_.hidden, qd = s_.q_dim(), kvd = s_.kv_dim(), hd = s_.head_dim;
    const int qkv_w = qd + 2 * kvd;
    const int inter = s_.intermediate;
    // Scratch of each stream: a [n, hidden], out [n, hidden], then qkv [n, qkv_w] + att [n, qd]
    // or the MLP's gate/up [n, 2·intermediate].
    auto a_of = [&](int s) { return io[s].scratch; };
    auto out_of = [&](int s) { return io[s].scratch + size_t(io[s].n_rows) * h; };
    auto big_of = [&](int s) { return io[s].scratch + 2 * size_t(io[s].n_rows) * h; };
    auto att_of = [&](int s) { return big_of(s) + size_t(io[s].n_rows) * qkv_w; };
    std::array<backend::ConvRows, kMaxBatchParts> parts;
    auto project = [&](const backend::ConvWeights& w) {
        backend::conv1d_parts(ctx, w, parts.data(), n, false);
    };

    // --- attention ---
    for (int s = 0; s < n; ++s) {
        const CodecTransformerIo& a = io[s];
        QWEN3TTS_ASSERT(a.n_rows <= a.kv->max_rows);
        QWEN3TTS_ASSERT(a.kv->n_cached == std::min<int64_t>(a.pos0, s_.window - 1));
        backend::rms_norm(a.u, in_norm_.data(), a.n_rows, h, s_.eps, a_of(s));
        parts[size_t(s)] = {a_of(s), h, a.n_rows, big_of(s), qkv_w};
    }
    project(qkv_);
    for (int s = 0; s < n; ++s) {
        const CodecTransformerIo& a = io[s];
        SlidingKv& kv = *a.kv;
        float* qkv = big_of(s);
        backend::rope(qkv, a.n_rows, qkv_w, s_.n_head, hd, a.cos, a.sin);
        backend::rope(qkv + qd, a.n_rows, qkv_w, s_.n_head_kv, hd, a.cos, a.sin);
        const int64_t base = kv.n_cached;  // cache row of position pos0
        for (int64_t t = 0; t < a.n_rows; ++t) {
            const float* k = qkv + t * qkv_w + qd;
            std::memcpy(kv.k.data() + size_t(base + t) * kvd, k, sizeof(float) * size_t(kvd));
            std::memcpy(kv.v.data() + size_t(base + t) * kvd, k + kvd, sizeof(float) * size_t(kvd));
        }
        backend::attention(ctx, qkv, qkv_w, kv.k.data(), kv.v.data(), kvd, a.n_rows, base,
                           {s_.n_head, s_.n_head_kv, hd, s_.window}, att_of(s), qd);
        // Keep the last window-1 positions for the next call.
        const int64_t total = base + a.n_rows;
        const int64_t keep = std::min<int64_t>(total, s_.window - 1);
        if (keep > 0 && total > keep) {
            std::memmove(kv.k.data(), kv.k.data() + size_t(total - keep) * kvd,
                         sizeof(float) * size_t(keep) * kvd);
            std::memmove(kv.v.data(), kv.v.data() + size_t(total - keep) * kvd,
                         sizeof(float) * size_t(keep) * kvd);
        }
        kv.n_cached = keep;
        parts[size_t(s)] = {att_of(s), qd, a.n_rows, out_of(s), h};
    }
    project(o_);

    // --- SwiGLU MLP ---
    for (int s = 0; s < n; ++s) {
        const CodecTransformerIo& a = io[s];
        backend::add_scaled_rows(a.u, out_of(s), attn_scale_.data(), a.n_rows, h);
        backend::rms_norm(a.u, post_norm_.data(), a.n_rows, h, s_.eps, a_of(s));
        parts[size_t(s)] = {a_of(s), h, a.n_rows, big_of(s), 2 * inter};
    }
    project(gate_up_);
    for (int s = 0; s < n; ++s) {
        float* gu = big_of(s);  // [n, 2·intermediate]: gate then up per row
        for (int64_t t = 0; t < io[s].n_rows; ++t)
            backend::silu_mul(gu + t * 2 * inter, gu + t * 2 * inter + inter, inter,
                              gu + t * 2 * inter);
        parts[size_t(s)] = {gu, 2 * inter, io[s].n_rows, out_of(s), h};
    }
    project(down_);
    for (int s = 0; s < n; ++s)
        backend::add_scaled_rows(io[s].u, out_of(s), mlp_scale_.data(), io[s].n_rows, h);
}

}  // namespace qwen3tts
