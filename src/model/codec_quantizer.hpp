// Split-RVQ dequantisation of the codec decoder: 16 codes per frame → [codebook_dim] latent.
//   E_q = embedding_sum_q / max(cluster_usage_q, 1e-5)            (precomputed at load)
//   z0 = E_first[c0];  zr = ((E_rest0[c1] + E_rest1[c2]) + ...) + E_rest14[c15]
//   h  = W_first · z0 + W_rest · zr                                (1×1 convs, no bias)
// ref: qwen_tts/core/tokenizer_12hz/modeling_qwen3_tts_tokenizer_v2.py,
//      SplitResidualVectorQuantizer.decode / EuclideanCodebook.decode
#pragma once

#include <cstdint>
#include <vector>

#include "backend/ops.hpp"
#include "model/codec_config.hpp"

namespace qwen3tts {

class WeightMap;

class CodecQuantizerDecoder {
  public:
    void load(const WeightMap& weights, const CodecDecoderConfig& cfg);
    static size_t scratch_floats(const CodecDecoderConfig& cfg, int64_t n_frames) {
        return size_t(n_frames) * 2 * size_t(cfg.vq_dim());
    }
    // codes [n_frames, n_codebook] (already validated) → out [n_frames, codebook_dim] (stride ldo).
    void dequantize(const int64_t* codes, int64_t n_frames, float* out, int64_t ldo, float* scratch,
                    const backend::ExecContext& ctx) const;

  private:
    int n_codebook_ = 0, codebook_size_ = 0, vq_dim_ = 0, out_dim_ = 0;
    std::vector<float> tables_;  // [n_codebook][codebook_size][vq_dim]
    backend::ConvWeights proj_first_, proj_rest_;
};

}  // namespace qwen3tts
