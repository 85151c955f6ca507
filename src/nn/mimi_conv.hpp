// Mimi's strided causal convolution (MimiConv1d with stride > 1, use_causal_conv=True) on
// channels-last rows, for kernels that are a multiple of the stride (k = m·s): the SEANet
// downsampling convs (k = 2s) and the 25 → 12.5 Hz downsample (k = 4, s = 2).
//
// Padding rule of the reference: left pad k − s (= (m−1)·s rows), right pad up to the stride
// grid, so L inputs give ceil(L/s) outputs. Pad values are zeros (pad_mode "constant") or
// copies of the first/last row (pad_mode "replicate"). Here the left padding is the carried
// state (zeros, or copies of row 0, at stream start: see init_state) and the caller appends the
// right padding to the last chunk, so a stream cut at multiples of s gives the one-shot result.
//
// How: group the input into blocks of s rows; a block is one row of s·c_in values in
// channels-last memory. Output t = Σ_{b<m} W_b · block[t + b] — an m-tap stride-1 conv over
// blocks with c_in' = s·c_in, run on the GEMM kernel of backend/cpu/conv_gemm.
// Weights are immutable after load (share across threads); state belongs to the caller.
// ref: transformers/models/mimi/modeling_mimi.py, MimiConv1d.forward /
//      _get_extra_padding_for_conv1d
#pragma once

#include <cstdint>
#include <string>

#include "backend/ops.hpp"

namespace qwen3tts {

class WeightMap;

class MimiStridedConv1d {
  public:
    // Tensors: <prefix>.weight [c_out, c_in, kernel], <prefix>.bias [c_out] when `bias`.
    // kernel must be a multiple of stride (Error(model) otherwise).
    void load(const WeightMap& weights, const std::string& prefix, int c_in, int c_out, int kernel,
              int stride, bool bias);
    int c_in() const { return c_in_; }
    int c_out() const { return c_out_; }
    int stride() const { return stride_; }
    int kernel() const { return kernel_; }
    int64_t history() const { return kernel_ - stride_; }  // input rows of left context
    size_t state_floats() const { return size_t(history()) * size_t(c_in_); }
    double flops(int64_t n_out) const { return w_.flops(n_out); }

    // Stream start: zeros, or (replicate) history() copies of the first input row.
    void init_state(float* state, const float* first_row, bool replicate) const;

    // x: n_in rows of c_in contiguous floats (row stride c_in) with history() writable rows
    // in front; n_in must be a multiple of stride(). Writes n_in/stride rows of c_out to y
    // (row stride ldy) and carries the last history() inputs in `state`.
    void forward(float* x, int64_t n_in, float* state, float* y, int64_t ldy,
                 const backend::ExecContext& ctx) const;

  private:
    int c_in_ = 0, c_out_ = 0, kernel_ = 0, stride_ = 1;
    backend::ConvWeights w_;  // m taps over blocks of stride·c_in values
};

}  // namespace qwen3tts
