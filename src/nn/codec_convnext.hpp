// ConvNeXt block of the codec decoder's upsampling stages (channels-last):
//   h = dwconv_k7_causal(x) → LayerNorm(eps 1e-6) → Linear(dim→4·dim) → GELU(erf)
//     → Linear(4·dim→dim) → gamma ⊙ h;   y = x + h.
// Streaming: the depthwise conv carries its last 6 inputs (same protocol as nn/conv1d.hpp).
// ref: qwen_tts/core/tokenizer_12hz/modeling_qwen3_tts_tokenizer_v2.py,
//      Qwen3TTSTokenizerV2ConvNeXtBlock
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backend/ops.hpp"
#include "nn/conv1d.hpp"

namespace qwen3tts {

class CodecConvNeXtBlock {
  public:
    // Tensors: <prefix>.dwconv.conv.{weight [dim,1,7], bias}, <prefix>.norm.{weight,bias},
    // <prefix>.pwconv1.{weight [4dim,dim], bias}, <prefix>.pwconv2.{weight [dim,4dim], bias},
    // <prefix>.gamma [dim].
    void load(const WeightMap& weights, const std::string& prefix, int dim);
    int dim() const { return dim_; }
    int64_t history() const { return dwconv_.history(); }
    size_t state_floats() const { return dwconv_.state_floats(); }
    static size_t scratch_floats(int dim, int64_t n_rows) {
        return size_t(n_rows) * 5 * size_t(dim);
    }
    double flops(int64_t n_rows) const { return pw1_.flops(n_rows) + pw2_.flops(n_rows); }

    // x: n_rows current rows (stride ldx) with history() writable rows in front; state: the
    // dwconv's carried inputs. y [n_rows, dim] (stride ldy) must not overlap x.
    void forward(float* x, int64_t ldx, int64_t n_rows, float* state, float* y, int64_t ldy,
                 float* scratch, const backend::ExecContext& ctx) const;
    // forward() for n <= kMaxBatchParts streams (io[s] and scratch[s] per stream), each
    // pointwise weight read once for all of them.
    void forward_parts(const CausalConvIo* io, float* const* scratch, int n,
                       const backend::ExecContext& ctx) const;

  private:
    int dim_ = 0;
    CausalDepthwiseConv1d dwconv_;
    std::vector<float> norm_w_, norm_b_, gamma_;
    backend::ConvWeights pw1_, pw2_;
};

}  // namespace qwen3tts
