#include "nn/decoder_stack.hpp"

#include <cstring>

#include "core/error.hpp"
#include "nn/linear_loading.hpp"

namespace qwen3tts {

using backend::ExecContext;

void DecoderScratch::reserve(const DecoderStackShape& s, int64_t tokens) {
    if (tokens <= max_tokens) return;
    max_tokens = tokens;
    const auto n = size_t(tokens);
    norm.resize(n * size_t(s.d_model));
    q.resize(n * size_t(s.n_head * s.head_dim));
    k.resize(n * size_t(s.n_head_kv * s.head_dim));
    v.resize(n * size_t(s.n_head_kv * s.head_dim));
    attn.resize(n * size_t(s.n_head * s.head_dim));
    proj.resize(n * size_t(s.d_model));
    gate.resize(n * size_t(s.d_ff));
    up.resize(n * size_t(s.d_ff));
    rope_cos.resize(n * size_t(s.head_dim / 2));
    rope_sin.resize(n * size_t(s.head_dim / 2));
    keys.reserve(n);  // at most a segment per token
    values.reserve(n);
    positions.reserve(n);
}

DecoderStack::DecoderStack(const WeightMap& w, const std::string& prefix,
                           const DecoderStackShape& s, std::optional<backend::QuantFormat> quant,
                           ThreadPool* pool, bool copy_mapped)
    : shape_(s), rope_(s.rope_theta, s.head_dim) {
    auto projection = [&](const std::string& name, std::vector<int64_t> shape) {
        return load_linear(w, w.get_float(name, shape), quant, pool, copy_mapped);
    };
    const int64_t d = s.d_model, qd = s.n_head * s.head_dim, kvd = s.n_head_kv * s.head_dim;
    for (int64_t il = 0; il < s.n_layer; ++il) {
        const std::string p = prefix + "layers." + std::to_string(il) + ".";
        Layer l;
        l.q = projection(p + "self_attn.q_proj.weight", {qd, d});
        l.k = projection(p + "self_attn.k_proj.weight", {kvd, d});
        l.v = projection(p + "self_attn.v_proj.weight", {kvd, d});
        l.o = projection(p + "self_attn.o_proj.weight", {d, qd});
        l.gate = projection(p + "mlp.gate_proj.weight", {s.d_ff, d});
        l.up = projection(p + "mlp.up_proj.weight", {s.d_ff, d});
        l.down = projection(p + "mlp.down_proj.weight", {d, s.d_ff});
        l.in_norm = w.get_float(p + "input_layernorm.weight", {d}).to_f32();
        l.post_norm = w.get_float(p + "post_attention_layernorm.weight", {d}).to_f32();
        l.q_norm = w.get_float(p + "self_attn.q_norm.weight", {s.head_dim}).to_f32();
        l.k_norm = w.get_float(p + "self_attn.k_norm.weight", {s.head_dim}).to_f32();
        layers_.push_back(std::move(l));
    }
    final_norm_ = w.get_float(prefix + "norm.weight", {d}).to_f32();
}

size_t DecoderStack::weight_bytes() const {
    size_t bytes = 0;
    for (const Layer& l : layers_)
        for (const auto* m : {&l.q, &l.k, &l.v, &l.o, &l.gate, &l.up, &l.down})
            bytes += m->nbytes();
    return bytes;
}

KvCache DecoderStack::make_cache(int64_t capacity) const {
    return KvCache(shape_.n_layer, capacity, shape_.n_head_kv * shape_.head_dim);
}

void DecoderStack::forward(const ExecContext& ctx, float* x, int64_t n, KvCache& cache,
                           DecoderScratch& scratch, float* out) const {
    const Segment one{&cache, n};
    forward(ctx, x, &one, 1, scratch, out);
}

// Attention of layer `il` for every segment (its keys and values already in its cache). Runs
// of one-row segments (streams' decode steps) go in one parallel region: one such row's
// attention over a short context is too little work to split by itself, so it ran on the
// calling thread alone while the other waited. Longer segments (prefill) attend by themselves.
// Either way each row gets what attention() of its segment alone gives, bit for bit.
void DecoderStack::attend(const backend::ExecContext& ctx, const Segment* segs, int count,
                          int64_t il, DecoderScratch& sc) const {
    const DecoderStackShape& s = shape_;
    const int64_t hd = s.head_dim, kvd = s.n_head_kv * hd, qd = s.n_head * hd;
    const backend::AttentionShape shape{s.n_head, s.n_head_kv, hd, 0};
    for (int64_t i = 0, row = 0; i < count;) {
        if (segs[i].n != 1) {
            KvCache& cache = *segs[i].cache;
            backend::attention(ctx, sc.q.data() + row * qd, qd, cache.keys(il), cache.values(il),
                               kvd, segs[i].n, cache.length(), shape, sc.attn.data() + row * qd,
                               qd);
            row += segs[i].n;
            ++i;
            continue;
        }
        int64_t run = 0;
        sc.keys.clear();
        sc.values.clear();
        sc.positions.clear();
        for (; i + run < count && segs[i + run].n == 1; ++run) {
            KvCache& cache = *segs[i + run].cache;
            sc.keys.push_back(cache.keys(il));
            sc.values.push_back(cache.values(il));
            sc.positions.push_back(cache.length());
        }
        backend::attention_streams(ctx, sc.q.data() + row * qd, qd, sc.keys.data(),
                                   sc.values.data(), kvd, sc.positions.data(), run, shape,
                                   sc.attn.data() + row * qd, qd);
        row += run;
        i += int(run);
    }
}

// ref: qwen_tts/core/models/modeling_qwen3_tts.py, Qwen3TTSDecoderLayer / Qwen3TTSAttention
void DecoderStack::forward(const ExecContext& ctx, float* x, const Segment* segs, int count,
                           DecoderScratch& sc, float* out) const {
    const DecoderStackShape& s = shape_;
    const int64_t d = s.d_model, hd = s.head_dim, kvd = s.n_head_kv * hd, qd = s.n_head * hd;
    int64_t n = 0;
    for (int i = 0; i < count; ++i) {
        const KvCache& cache = *segs[i].cache;
        const int64_t pos0 = cache.length();
        if (pos0 + segs[i].n > cache.capacity())
            throw Error(ErrorCode::invalid_argument,
                        "context length " + std::to_string(pos0 + segs[i].n) +
                            " exceeds the reserved " + std::to_string(cache.capacity()) +
                            " positions");
        segs[i].cache->make_resident(pos0 + segs[i].n);
        rope_.tables(pos0, segs[i].n, sc.rope_cos.data() + n * (hd / 2),
                     sc.rope_sin.data() + n * (hd / 2));
        n += segs[i].n;
        QWEN3TTS_ASSERT(n <= sc.max_tokens);
    }

    for (int64_t il = 0; il < s.n_layer; ++il) {
        const Layer& l = layers_[size_t(il)];
        backend::rms_norm(ctx, x, l.in_norm.data(), n, d, s.eps, sc.norm.data());
        {  // q [n, n_head*hd], k and v [n, n_kv*hd]
            const backend::LinearWeights* ws[3] = {&l.q, &l.k, &l.v};
            float* ys[3] = {sc.q.data(), sc.k.data(), sc.v.data()};
            backend::linear_group(ctx, sc.norm.data(), n, ws, ys, 3);
        }
        backend::rms_norm(ctx, sc.q.data(), l.q_norm.data(), n * s.n_head, hd, s.eps, sc.q.data());
        backend::rms_norm(ctx, sc.k.data(), l.k_norm.data(), n * s.n_head_kv, hd, s.eps,
                          sc.k.data());
        backend::rope(sc.q.data(), n, qd, s.n_head, hd, sc.rope_cos.data(), sc.rope_sin.data());
        backend::rope(sc.k.data(), n, kvd, s.n_head_kv, hd, sc.rope_cos.data(), sc.rope_sin.data());
        for (int64_t i = 0, row = 0; i < count; row += segs[i].n, ++i) {
            KvCache& cache = *segs[i].cache;
            const int64_t pos0 = cache.length(), rows = segs[i].n;
            std::memcpy(cache.keys(il) + pos0 * kvd, sc.k.data() + row * kvd,
                        size_t(rows * kvd) * sizeof(float));
            std::memcpy(cache.values(il) + pos0 * kvd, sc.v.data() + row * kvd,
                        size_t(rows * kvd) * sizeof(float));
        }
        attend(ctx, segs, count, il, sc);
        backend::linear(ctx, sc.attn.data(), n, l.o, nullptr, sc.proj.data());
        backend::add_inplace(x, sc.proj.data(), n * d);

        backend::rms_norm(ctx, x, l.post_norm.data(), n, d, s.eps, sc.norm.data());
        {
            const backend::LinearWeights* ws[2] = {&l.gate, &l.up};
            float* ys[2] = {sc.gate.data(), sc.up.data()};
            backend::linear_group(ctx, sc.norm.data(), n, ws, ys, 2);
        }
        backend::silu_mul(ctx, sc.gate.data(), sc.up.data(), n * s.d_ff, sc.gate.data());
        backend::linear(ctx, sc.gate.data(), n, l.down, nullptr, sc.proj.data());
        backend::add_inplace(x, sc.proj.data(), n * d);
    }
    for (int i = 0; i < count; ++i) segs[i].cache->set_length(segs[i].cache->length() + segs[i].n);
    backend::rms_norm(ctx, x, final_norm_.data(), n, d, s.eps, out);
}

}  // namespace qwen3tts
