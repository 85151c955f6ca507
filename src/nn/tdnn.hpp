// The convolution of the ECAPA-TDNN speaker encoder: torch Conv1d(c_in, c_out, kernel,
// dilation, padding="same", padding_mode="reflect", bias=True), optionally followed by ReLU
// (TimeDelayNetBlock = this conv + ReLU). Activations are channels-last [T, C] with a row
// stride, so a Res2Net chunk (a column slice) can be read and written in place.
//
// "same" padding: total d·(kernel-1) rows, left half (rounded down) in front, the rest behind,
// both filled by reflection (edge row not repeated), as torch does for padding_mode="reflect";
// torch then needs T > pad on each side (checked here as an invariant; the encoder checks the
// input length up front with a clear error).
//
// Weights are widened to f32 and packed once at load (backend/cpu/conv_gemm); immutable after
// load, so one instance may be used by several threads.
// ref: qwen_tts/core/models/modeling_qwen3_tts.py, TimeDelayNetBlock
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "backend/ops.hpp"

namespace qwen3tts {

class WeightMap;

class ReflectConv1d {
  public:
    // Tensors <prefix>.weight [c_out, c_in, kernel] and <prefix>.bias [c_out] (any float dtype).
    void load(const WeightMap& weights, const std::string& prefix, int c_in, int c_out, int kernel,
              int dilation, bool relu);

    int c_in() const { return w_.c_in; }
    int c_out() const { return w_.c_out; }
    int pad_left() const { return int(w_.history() / 2); }
    int pad_right() const { return int(w_.history()) - pad_left(); }
    // Shortest input torch accepts: reflect padding needs T > pad on each side.
    int64_t min_rows() const { return std::max(pad_left(), pad_right()) + 1; }
    double flops(int64_t n_rows) const { return w_.flops(n_rows); }

    // y[T, c_out] (row stride ldy) = act(conv(x[T, c_in] (row stride ldx))). x and y must not
    // overlap. Allocates a padded copy of x when kernel > 1.
    void forward(const float* x, int64_t ldx, int64_t n_rows, float* y, int64_t ldy,
                 const backend::ExecContext& ctx) const;

  private:
    backend::ConvWeights w_;
    bool relu_ = false;
};

// ReLU over rows [n_rows, n_col] with row stride ld.
void relu_rows(float* y, int64_t ld, int64_t n_rows, int n_col);

}  // namespace qwen3tts
