// SnakeBeta activation (BigVGAN): y = x + 1/(exp(beta)+1e-9) · sin(exp(alpha)·x)², per channel.
// The stored alpha/beta are log-scale; exp() is applied once at load.
// ref: qwen_tts/core/tokenizer_12hz/modeling_qwen3_tts_tokenizer_v2.py, SnakeBeta
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backend/ops.hpp"

namespace qwen3tts {

class WeightMap;

class SnakeBeta {
  public:
    // Tensors: <prefix>.alpha [dim], <prefix>.beta [dim].
    void load(const WeightMap& weights, const std::string& prefix, int dim);
    int dim() const { return int(a_.size()); }
    // Channels-last rows; in place allowed (y == x, ldy == ldx).
    void forward(const float* x, int64_t ldx, int64_t n_rows, float* y, int64_t ldy,
                 const backend::ExecContext& ctx) const;

  private:
    std::vector<float> a_;      // exp(alpha)
    std::vector<float> inv_b_;  // 1 / (exp(beta) + 1e-9)
};

}  // namespace qwen3tts
