// One layer of Mimi's encoder transformer (`encoder_transformer.layers.{l}`): pre-norm
// LayerNorm (affine, eps 1e-5), multi-head attention with rotate-half RoPE over the causal
// past, layer-scaled residual; LayerNorm, fc1 → exact (erf) GELU → fc2, layer-scaled residual.
// No biases in the projections. Runs one-shot on channels-last rows [n_rows, hidden] at
// positions 0..n_rows-1 (the encoder sees the whole clip at once).
//
// Attention span: the official path (transformers 4.57, sdpa/eager) builds a plain causal
// mask, so every query sees all earlier positions; config.sliding_window (250) is honoured
// only by flash-attention-2. `window` = 0 reproduces the official behaviour; > 0 restricts
// each query to the last `window` keys, itself included (the flash-attention variant).
// Immutable after load; forward() uses caller scratch plus per-head temporaries.
// ref: transformers/models/mimi/modeling_mimi.py, MimiTransformerLayer / MimiAttention /
//      MimiSdpaAttention / MimiMLP / MimiLayerScale
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backend/ops.hpp"

namespace qwen3tts {

class WeightMap;

struct MimiTransformerShape {
    int hidden = 512;
    int intermediate = 2048;
    int n_head = 8;
    int n_head_kv = 8;
    int head_dim = 64;
    float eps = 1e-5f;  // LayerNorm
    int window = 0;     // 0: full causal (official); > 0: keys per query, itself included

    int q_dim() const { return n_head * head_dim; }
    int kv_dim() const { return n_head_kv * head_dim; }
};

class MimiTransformerLayer {
  public:
    // Tensors under <prefix>: input_layernorm.{weight,bias}, self_attn.{q,k,v,o}_proj.weight,
    // self_attn_layer_scale.scale, post_attention_layernorm.{weight,bias}, mlp.fc1.weight,
    // mlp.fc2.weight, mlp_layer_scale.scale.
    void load(const WeightMap& weights, const std::string& prefix, const MimiTransformerShape& s);
    static size_t scratch_floats(const MimiTransformerShape& s, int64_t n_rows);
    double flops(int64_t n_rows) const;

    // x [n_rows, hidden] updated in place. cos/sin [n_rows, head_dim/2] (nn/rope.hpp).
    void forward(float* x, int64_t n_rows, const float* cos, const float* sin, float* scratch,
                 const backend::ExecContext& ctx) const;

  private:
    MimiTransformerShape s_;
    std::vector<float> in_norm_w_, in_norm_b_, post_norm_w_, post_norm_b_;
    std::vector<float> attn_scale_, mlp_scale_;
    backend::ConvWeights qkv_;  // [q_dim + 2·kv_dim] outputs: q, k, v
    backend::ConvWeights o_;
    backend::ConvWeights fc1_;
    backend::ConvWeights fc2_;
};

}  // namespace qwen3tts
