// Mimi's split residual vector quantizer, encode direction: latent rows [n, hidden] →
// codes [n, n_semantic + n_acoustic]. The semantic and acoustic RVQs are parallel: each
// projects the same latent through its own 1×1 conv (hidden → dim, no bias) and runs its own
// residual chain (code i = nearest codeword to the residual, residual −= codeword).
//
// Nearest neighbour exactly as torch.cdist's matrix-multiply path followed by argmin:
// d[k] = sqrt(max(0, [−2r, ‖r‖², 1] · [E_k, 1, ‖E_k‖²])), the first index among equal minima;
// codebook E = embed_sum / max(cluster_usage, 1e-5), f32. The augmented products run as one
// GEMM per level over all frames.
// Immutable after load; encode() allocates its own scratch.
// ref: transformers/models/mimi/modeling_mimi.py, MimiSplitResidualVectorQuantizer.encode /
//      MimiResidualVectorQuantizer.encode / MimiEuclideanCodebook.quantize;
//      torch aten/src/ATen/native/Distance.cpp, _euclidean_dist
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backend/ops.hpp"

namespace qwen3tts {

class WeightMap;

struct MimiRvqShape {
    int hidden = 512;  // latent width
    int dim = 256;     // vector_quantization_hidden_dimension = codebook_dim
    int codebook_size = 2048;
    int n_semantic = 1;   // semantic levels used (codes 0 .. n_semantic-1)
    int n_acoustic = 15;  // acoustic levels used (the next codes)
};

// Codebook entry k as the reference computes it: embed_sum[k] / max(cluster_usage[k], eps).
constexpr float kMimiCodebookEps = 1e-5f;

class MimiSplitRvqEncoder {
  public:
    // Tensors under <prefix> (e.g. "encoder.quantizer"):
    // {semantic,acoustic}_residual_vector_quantizer.input_proj.weight [dim, hidden, 1]
    // (absent when dim == hidden) and ….layers.{k}.codebook.{embed_sum [size, dim],
    // cluster_usage [size]} for the levels used.
    void load(const WeightMap& weights, const std::string& prefix, const MimiRvqShape& s);
    int n_codebook() const { return s_.n_semantic + s_.n_acoustic; }
    double flops(int64_t n_rows) const;

    // z [n, hidden] → codes [n, n_codebook()] row-major.
    void encode(const float* z, int64_t n, int64_t* codes, const backend::ExecContext& ctx) const;

  private:
    struct Codebook {
        std::vector<float> embed;   // [size, dim]
        backend::ConvWeights dist;  // rows [E_k, 1, ‖E_k‖²]: squared distances as one GEMM
    };
    struct Rvq {
        bool has_proj = false;
        backend::ConvWeights in_proj;  // hidden → dim
        std::vector<Codebook> levels;
    };
    void load_rvq(const WeightMap& weights, const std::string& prefix, int n_levels, Rvq& rvq);
    void encode_rvq(const Rvq& rvq, const float* z, int64_t n, int64_t* codes, int code0,
                    const backend::ExecContext& ctx) const;

    MimiRvqShape s_;
    Rvq semantic_, acoustic_;
};

}  // namespace qwen3tts
