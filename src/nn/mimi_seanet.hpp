// Mimi's SEANet encoder (the conv stack in front of the encoder transformer): 24 kHz mono
// waveform → [ceil(L / hop), hidden] rows at 25 Hz for the released codec (hop = 960).
//
//   conv k7 (1 → F) → per stage s ∈ strides (4, 5, 6, 8): residual block(s) (ELU → conv k3
//   (C → C/2) → ELU → conv k1 (C/2 → C), identity skip), ELU, strided conv k = 2s (C → 2C)
//   → ELU → conv k3 (16F → hidden).
//
// Every conv is causal with zero padding; strided convs zero-pad their (ELU'd) input on the
// right up to the stride grid (see nn/mimi_conv.hpp). The waveform is processed in chunks of
// a multiple of hop samples with each conv carrying its left context, which gives the
// one-shot result with memory bounded by the chunk (the 64-channel 24 kHz stage of a 30 s
// clip would otherwise take ~180 MB per buffer).
// Immutable after load; forward() allocates its own scratch, so it may run concurrently.
// ref: transformers/models/mimi/modeling_mimi.py, MimiEncoder / MimiResnetBlock / MimiConv1d
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backend/ops.hpp"
#include "nn/conv1d.hpp"
#include "nn/mimi_conv.hpp"

namespace qwen3tts {

class WeightMap;

struct MimiSeanetShape {
    int n_filters = 64;                    // F: width of the first conv
    std::vector<int> strides{4, 5, 6, 8};  // execution order (upsampling_ratios reversed)
    int kernel = 7;                        // first conv
    int last_kernel = 3;
    int residual_kernel = 3;
    int n_residual_layers = 1;  // residual blocks per stage
    int dilation_growth = 2;    // block j dilates its first conv by growth^j
    int compress = 2;           // residual hidden = C / compress
    int hidden = 512;           // output channels

    int64_t hop() const;  // prod(strides)
};

class MimiSeanetEncoder {
  public:
    // Tensors under <prefix> (e.g. "encoder.encoder"): layers.{i}.conv.* and
    // layers.{i}.block.{1,3}.conv.*, numbered as the reference's module list.
    void load(const WeightMap& weights, const std::string& prefix, const MimiSeanetShape& shape);
    const MimiSeanetShape& shape() const { return s_; }
    int64_t out_frames(int64_t n_samples) const;  // ceil(n_samples / hop)
    double flops(int64_t n_samples) const;

    // audio [n] → [out_frames(n), hidden] row-major. chunk_samples is rounded up to a
    // multiple of hop (scratch ≈ 4·F·4 bytes per chunk sample).
    std::vector<float> forward(const float* audio, int64_t n, const backend::ExecContext& ctx,
                               int64_t chunk_samples = 9600) const;

  private:
    struct ResUnit {
        CausalConv1d conv_a;  // C → C/compress, residual_kernel, dilated
        CausalConv1d conv_b;  // C/compress → C, k = 1
    };
    struct Stage {
        int dim = 0;  // channels in; the strided conv doubles them
        std::vector<ResUnit> res;
        MimiStridedConv1d down;
    };

    MimiSeanetShape s_;
    CausalConv1d first_, last_;
    std::vector<Stage> stages_;
};

}  // namespace qwen3tts
