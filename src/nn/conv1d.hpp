// Causal 1-D convolutions with carried left context, channels-last ([rows, channels]).
//
// Streaming protocol shared by every layer here: the caller writes the current input rows at
// `x` inside a scratch buffer that has history() writable rows in front of x. forward() copies
// the layer's carried state (its last history() inputs; zeros at stream start = the causal
// zero padding of the reference) into those rows, runs, and saves the new last history()
// inputs back into `state`. So a stream cut into any pieces gives the one-shot result.
// Weights are immutable after load (share across threads); state belongs to the caller.
// ref: qwen_tts/core/tokenizer_12hz/modeling_qwen3_tts_tokenizer_v2.py,
//      Qwen3TTSTokenizerV2CausalConvNet / Qwen3TTSTokenizerV2CausalTransConvNet
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backend/ops.hpp"

namespace qwen3tts {

class WeightMap;

// Most streams a batched forward takes at once (the codec decodes larger batches in groups).
constexpr int kMaxBatchParts = 64;

// One stream's input and output of a batched forward (forward_parts): the arguments of
// forward() for that stream.
struct CausalConvIo {
    float* x = nullptr;  // current input rows, history() writable rows in front
    int64_t ldx = 0;
    int64_t n_rows = 0;
    float* state = nullptr;
    float* y = nullptr;
    int64_t ldy = 0;
};

// Conv1d(c_in, c_out, kernel, dilation), left zero padding (kernel-1)·dilation, stride 1.
// Tensors: <prefix>.weight [c_out, c_in, kernel], <prefix>.bias [c_out].
class CausalConv1d {
  public:
    void load(const WeightMap& weights, const std::string& prefix, int c_in, int c_out, int kernel,
              int dilation = 1);
    // Computes with Winograd F(m, kernel) from now on (backend::add_winograd); before use.
    void add_winograd(int m) { backend::add_winograd(w_, m); }
    int c_in() const { return w_.c_in; }
    int c_out() const { return w_.c_out; }
    int64_t history() const { return w_.history(); }  // rows of left context
    size_t state_floats() const { return size_t(history()) * size_t(w_.c_in); }
    double flops(int64_t n_rows) const { return w_.flops(n_rows); }

    // y[t] (+)= conv over rows x[t - history() .. t]; x rows have stride ldx >= c_in.
    // y must not overlap x or its history rows.
    void forward(float* x, int64_t ldx, int64_t n_rows, float* state, float* y, int64_t ldy,
                 bool accumulate, const backend::ExecContext& ctx) const;
    // forward() for n <= kMaxBatchParts independent streams, each weight read once for all.
    void forward_parts(const CausalConvIo* io, int n, bool accumulate,
                       const backend::ExecContext& ctx) const;

  private:
    backend::ConvWeights w_;
};

// Depthwise Conv1d(dim, dim, kernel, groups=dim), causal (ConvNeXt's dwconv). Cheap (runs at
// 25/50 Hz), so plain loops. Tensors: <prefix>.weight [dim, 1, kernel], <prefix>.bias [dim].
class CausalDepthwiseConv1d {
  public:
    void load(const WeightMap& weights, const std::string& prefix, int dim, int kernel);
    int dim() const { return dim_; }
    int64_t history() const { return kernel_ - 1; }
    size_t state_floats() const { return size_t(history()) * size_t(dim_); }
    void forward(float* x, int64_t ldx, int64_t n_rows, float* state, float* y, int64_t ldy) const;

  private:
    int dim_ = 0;
    int kernel_ = 0;
    std::vector<float> w_;  // [kernel][dim] (tap-major, so the channel loop is contiguous)
    std::vector<float> b_;  // [dim]
};

// ConvTranspose1d(c_in, c_out, kernel, stride) with the right trim of kernel-stride samples
// (post-fix upstream version: output length = input length · stride, no look-ahead).
// kernel must be a multiple of stride (the codec uses kernel = stride and 2·stride).
// Output row n·stride + r = Σ of inputs n-(m-1)..n, m = kernel/stride; computed as one
// stride-1 convolution with stride·c_out outputs (backend::prepare_conv_transpose1d).
// Tensors: <prefix>.weight [c_in, c_out, kernel], <prefix>.bias [c_out].
class CausalConvTranspose1d {
  public:
    void load(const WeightMap& weights, const std::string& prefix, int c_in, int c_out, int kernel,
              int stride);
    int c_in() const { return c_in_; }
    int c_out() const { return c_out_; }
    int stride() const { return stride_; }
    int64_t history() const { return kernel_ / stride_ - 1; }  // input rows of left context
    size_t state_floats() const { return size_t(history()) * size_t(c_in_); }
    double flops(int64_t n_in) const;

    // y: n_in·stride rows of c_out, densely packed (ldy must be c_out: the phases of one input
    // row are written as one row of stride·c_out; else Error(internal)). Same x/state
    // protocol as CausalConv1d.
    void forward(float* x, int64_t ldx, int64_t n_in, float* state, float* y, int64_t ldy,
                 const backend::ExecContext& ctx) const;
    void forward_parts(const CausalConvIo* io, int n, const backend::ExecContext& ctx) const;

  private:
    int c_in_ = 0, c_out_ = 0, kernel_ = 0, stride_ = 1;
    backend::ConvWeights w_;  // stride·c_out outputs: column r·c_out + o is phase r
};

}  // namespace qwen3tts
