// Attentive statistics pooling with global context (ECAPA-TDNN), channels C, attention A:
//   μ, σ   = mean and std of x over time with uniform weights 1/T (eps 1e-12 inside the root)
//   h      = tanh(ReLU(tdnn(cat(x_t, μ, σ))))       Conv1d(3C→A, k1) + ReLU, then tanh
//   α      = softmax over time of conv(h)           Conv1d(A→C, k1), per channel
//   out    = cat(Σ_t α_t·x_t, sqrt(max(Σ_t α_t·(x_t - μ')², 1e-12)))   [2C]
// Activations channels-last [T, C]. Statistics are accumulated in double.
// Immutable after load; forward() may run on several threads at once.
// ref: qwen_tts/core/models/modeling_qwen3_tts.py, AttentiveStatisticsPooling
//      (spec/talker.md §7.3)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backend/ops.hpp"
#include "nn/tdnn.hpp"

namespace qwen3tts {

class AttentiveStatsPooling {
  public:
    // Tensors <prefix>.tdnn.conv.{weight [A, 3C, 1], bias [A]}, <prefix>.conv.{weight [C, A, 1],
    // bias [C]}.
    void load(const WeightMap& weights, const std::string& prefix, int channels,
              int attention_channels);

    int channels() const { return channels_; }
    double flops(int64_t n_rows) const;

    // x [T, C] (row stride ldx) → [2C] = cat(weighted mean, weighted std).
    std::vector<float> forward(const float* x, int64_t ldx, int64_t n_rows,
                               const backend::ExecContext& ctx) const;

  private:
    int channels_ = 0, attention_ = 0;
    // The tdnn input is cat(x_t, μ, σ) with μ, σ constant over time, so tdnn splits into a
    // per-frame part W[:, :C]·x_t (packed, no bias) and a per-call constant
    // b + W[:, C:2C]·μ + W[:, 2C:]·σ.
    // diverges: same sums, but the 2C constant columns are applied once instead of at every
    // frame, because they would triple the cost of this layer.
    backend::ConvWeights tdnn_frame_;
    std::vector<float> tdnn_context_w_;  // [A, 2C], row-major
    std::vector<float> tdnn_bias_;       // [A]
    ReflectConv1d conv_;                 // A → C, k1, no activation
};

}  // namespace qwen3tts
