#include "model/talker.hpp"

#include <vector>

#include "core/error.hpp"
#include "nn/linear_loading.hpp"

namespace qwen3tts {

DecoderStackShape stack_shape(const TransformerConfig& c) {
    DecoderStackShape s;
    s.d_model = c.hidden_size;
    s.d_ff = c.intermediate_size;
    s.n_layer = c.num_hidden_layers;
    s.n_head = c.num_attention_heads;
    s.n_head_kv = c.num_key_value_heads;
    s.head_dim = c.head_dim;
    s.eps = c.rms_norm_eps;
    s.rope_theta = c.rope_theta;
    return s;
}

// ref: qwen_tts/core/models/modeling_qwen3_tts.py, Qwen3TTSTalkerForConditionalGeneration
Talker::Talker(const WeightMap& w, const TalkerConfig& c, std::optional<backend::QuantFormat> quant,
               ThreadPool* pool, std::optional<backend::QuantFormat> head_quant, bool copy_mapped)
    : config_(c), stack_(w, "talker.model.", stack_shape(c), quant, pool, copy_mapped) {
    const int64_t h = c.hidden_size, th = c.text_hidden_size;
    text_embedding_ = &w.get_float("talker.model.text_embedding.weight", {c.text_vocab_size, th});
    fc1_ = &w.get_float("talker.text_projection.linear_fc1.weight", {th, th});
    fc1_bias_ = w.get_float("talker.text_projection.linear_fc1.bias", {th}).to_f32();
    fc2_ = &w.get_float("talker.text_projection.linear_fc2.weight", {h, th});
    fc2_bias_ = w.get_float("talker.text_projection.linear_fc2.bias", {h}).to_f32();
    codec_embedding_ = &w.get_float("talker.model.codec_embedding.weight", {c.vocab_size, h});
    const TensorView& head = w.get_float("talker.codec_head.weight", {c.vocab_size, h});
    codec_head_ = load_linear(w, head, head_quant, pool, copy_mapped);
}

void Talker::embed_text(const backend::ExecContext& ctx, const int32_t* ids, int64_t n,
                        float* out) const {
    const int64_t th = config_.text_hidden_size;
    std::vector<float> rows(size_t(n * th)), mid(size_t(n * th));
    backend::embedding_rows(*text_embedding_, ids, n, rows.data());  // [n, th]
    backend::linear(ctx, rows.data(), n, *fc1_, fc1_bias_.data(), mid.data());
    backend::silu_inplace(mid.data(), n * th);
    backend::linear(ctx, mid.data(), n, *fc2_, fc2_bias_.data(), out);  // [n, H]
}

void Talker::logits(const backend::ExecContext& ctx, const float* hidden, int64_t n,
                    float* out) const {
    backend::linear(ctx, hidden, n, codec_head_, nullptr, out);
}

}  // namespace qwen3tts
