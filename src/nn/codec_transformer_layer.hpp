// One layer of the codec decoder's transformer (`pre_transformer`): pre-norm RMSNorm,
// multi-head attention with RoPE (rotate-half) over a causal sliding window, SwiGLU MLP,
// layer-scaled residuals. Runs on channels-last rows [n_rows, hidden].
//
// Streaming: each layer carries the post-RoPE keys and values of the last window-1 positions
// (SlidingKv); positions keep counting across calls, so any cut of the stream gives the
// one-shot result. State size is bounded by the window, whatever the stream length.
// ref: qwen_tts/core/tokenizer_12hz/modeling_qwen3_tts_tokenizer_v2.py,
//      Qwen3TTSTokenizerV2DecoderTransformerLayer / ...DecoderAttention / ...DecoderMlp
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backend/ops.hpp"
#include "nn/conv1d.hpp"

namespace qwen3tts {

class WeightMap;

struct CodecTransformerShape {
    int hidden = 512;
    int intermediate = 1024;
    int n_head = 16;
    int n_head_kv = 16;
    int head_dim = 64;
    int window = 72;  // keys per query, the current one included
    float eps = 1e-5f;

    int q_dim() const { return n_head * head_dim; }
    int kv_dim() const { return n_head_kv * head_dim; }
};

// Keys/values of the last window-1 positions plus room for one call of up to max_rows rows.
struct SlidingKv {
    std::vector<float> k, v;  // [(window-1) + max_rows, kv_dim]
    int64_t n_cached = 0;     // valid rows at the front (positions pos0-n_cached .. pos0-1)
    int64_t max_rows = 0;

    void reset(const CodecTransformerShape& s, int64_t max_rows_per_call);
};

// One stream's arguments of CodecTransformerLayer::forward, for forward_parts.
struct CodecTransformerIo {
    float* u = nullptr;
    int64_t n_rows = 0;
    int64_t pos0 = 0;
    const float* cos = nullptr;
    const float* sin = nullptr;
    SlidingKv* kv = nullptr;
    float* scratch = nullptr;
};

class CodecTransformerLayer {
  public:
    // Tensors under <prefix>: input_layernorm.weight, self_attn.{q,k,v,o}_proj.weight,
    // self_attn_layer_scale.scale, post_attention_layernorm.weight,
    // mlp.{gate,up,down}_proj.weight, mlp_layer_scale.scale.
    void load(const WeightMap& weights, const std::string& prefix, const CodecTransformerShape& s);
    static size_t scratch_floats(const CodecTransformerShape& s, int64_t n_rows);
    double flops(int64_t n_rows) const;

    // u [n_rows, hidden] is updated in place; rows are positions pos0 .. pos0+n_rows-1.
    // n_rows <= kv.max_rows. cos/sin [n_rows, head_dim/2] (nn/rope.hpp) for those positions.
    void forward(float* u, int64_t n_rows, int64_t pos0, const float* cos, const float* sin,
                 SlidingKv& kv, float* scratch, const backend::ExecContext& ctx) const;
    // forward() for n <= kMaxBatchParts streams (nn/conv1d.hpp), each projection's weights
    // read once for all of them; attention stays per stream, over its own keys and values.
    void forward_parts(const CodecTransformerIo* io, int n, const backend::ExecContext& ctx) const;

  private:
    CodecTransformerShape s_;
    std::vector<float> in_norm_, post_norm_, attn_scale_, mlp_scale_;
    backend::ConvWeights qkv_;  // [q_dim + 2·kv_dim] outputs
    backend::ConvWeights o_;
    backend::ConvWeights gate_up_;  // [2·intermediate] outputs: gate then up
    backend::ConvWeights down_;
};

}  // namespace qwen3tts
