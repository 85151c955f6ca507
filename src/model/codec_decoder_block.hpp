// The SEANet/BigVGAN-style decoder block of the codec (decoder.decoder.1..4):
//   SnakeBeta(c_in) → CausalConvTranspose1d(c_in→c_out, k=2r, s=r) →
//   3 × ResidualUnit(c_out, dilation 1, 3, 9), ResidualUnit(x) = x +
//   conv1x1(snake(conv7_d(snake(x)))).
// Channels-last, streaming (each conv carries its left context in CodecDecoderBlockState).
// ref: qwen_tts/core/tokenizer_12hz/modeling_qwen3_tts_tokenizer_v2.py,
//      Qwen3TTSTokenizerV2DecoderDecoderBlock / ...DecoderDecoderResidualUnit
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "backend/ops.hpp"
#include "nn/conv1d.hpp"
#include "nn/snake_beta.hpp"

namespace qwen3tts {

struct CodecResidualUnit {
    SnakeBeta act1;
    CausalConv1d conv1;  // k=7, dilation d
    SnakeBeta act2;
    CausalConv1d conv2;  // k=1
};

class CodecDecoderBlock;
struct CodecDecoderBlockState;

// One stream's arguments of CodecDecoderBlock::forward, for forward_parts.
struct CodecDecoderBlockIo {
    const float* x = nullptr;
    int64_t n_in = 0;
    CodecDecoderBlockState* st = nullptr;
    float* res = nullptr;
    float* stage = nullptr;
    float* tmp = nullptr;
};

struct CodecDecoderBlockState {
    std::vector<float> up;                    // transposed conv: last input rows
    std::array<std::vector<float>, 3> conv1;  // residual-unit k=7 convs: last 6·d inputs
    void reset(const CodecDecoderBlock& block);
};

class CodecDecoderBlock {
  public:
    static constexpr int kDilations[3] = {1, 3, 9};
    // Rows kept free in front of the staged conv inputs in `stage` (>= the largest left
    // context, 6·9 rows, of any conv inside).
    static constexpr int64_t kStageHead = 64;

    // prefix: "decoder.decoder.<b>"; c_out = c_in / 2. winograd_tile > 0: the residual units'
    // 7-tap convs by Winograd F(winograd_tile, 7) (backend::add_winograd); 0: direct sums.
    void load(const WeightMap& weights, const std::string& prefix, int c_in, int c_out, int rate,
              int winograd_tile);
    int c_in() const { return up_.c_in(); }
    int c_out() const { return up_.c_out(); }
    int rate() const { return up_.stride(); }
    double flops(int64_t n_in) const;

    // x: n_in input rows [n_in, c_in] (dense). Output: res [n_in·rate, c_out] (dense); x may
    // be res itself (it is consumed first). `stage` is scratch of
    // stage_floats(n_in) floats; `tmp` holds n_in·rate·c_out floats.
    void forward(const float* x, int64_t n_in, CodecDecoderBlockState& st, float* res, float* stage,
                 float* tmp, const backend::ExecContext& ctx) const;
    // forward() for n <= kMaxBatchParts streams, each conv's weights read once for all.
    void forward_parts(const CodecDecoderBlockIo* io, int n, const backend::ExecContext& ctx) const;
    size_t stage_floats(int64_t n_in) const;

  private:
    friend struct CodecDecoderBlockState;
    SnakeBeta snake_;
    CausalConvTranspose1d up_;
    std::array<CodecResidualUnit, 3> units_;
};

}  // namespace qwen3tts
