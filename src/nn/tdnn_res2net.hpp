// The SE-Res2Net block of the ECAPA-TDNN speaker encoder (SqueezeExcitationRes2NetBlock):
//   y = tdnn1(x)                       TDNN(c→c, k1) + ReLU
//   split y into `scale` chunks of c/scale channels y_0..y_{s-1}
//   z_0 = y_0, z_1 = R_0(y_1), z_i = R_{i-1}(y_i + z_{i-1})   R = TDNN(k, dilation) + ReLU
//   y = tdnn2(cat z)                   TDNN(c→c, k1) + ReLU
//   s = sigmoid(conv2(relu(conv1(mean_t y))))   squeeze-excitation, c→se→c, k1
//   out = y·s + x
// Activations channels-last [T, C]; the Res2Net chunks are column slices read and written in
// place through row strides. No BatchNorm (unlike SpeechBrain's ECAPA): the checkpoint has none.
// Immutable after load; forward() may run on several threads at once.
// ref: qwen_tts/core/models/modeling_qwen3_tts.py, SqueezeExcitationRes2NetBlock, Res2NetBlock,
//      SqueezeExcitationBlock (spec/talker.md §7.3)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backend/ops.hpp"
#include "nn/tdnn.hpp"

namespace qwen3tts {

class SeRes2NetBlock {
  public:
    // Tensors under <prefix>: tdnn1.conv, res2net_block.blocks.{0..scale-2}.conv, tdnn2.conv,
    // se_block.conv1, se_block.conv2 (each .weight/.bias). `channels` must divide by `scale`.
    void load(const WeightMap& weights, const std::string& prefix, int channels, int scale,
              int se_channels, int kernel, int dilation);

    int channels() const { return channels_; }
    int64_t min_rows() const;  // shortest input the reflect padding accepts
    double flops(int64_t n_rows) const;

    // y[T, C] (row stride ldy) = block(x[T, C] (row stride ldx)); x and y must not overlap.
    void forward(const float* x, int64_t ldx, int64_t n_rows, float* y, int64_t ldy,
                 const backend::ExecContext& ctx) const;

  private:
    int channels_ = 0, scale_ = 0, width_ = 0;  // width_ = channels / scale
    ReflectConv1d tdnn1_, tdnn2_;
    std::vector<ReflectConv1d> res2net_;  // [scale - 1]
    ReflectConv1d se_conv1_, se_conv2_;
};

}  // namespace qwen3tts
