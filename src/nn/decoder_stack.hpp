// A stack of Qwen3 decoder layers (RMSNorm, GQA attention with per-head q/k RMSNorm and
// rotate-half RoPE, SwiGLU MLP) followed by the final RMSNorm: the body of both the talker and
// the code predictor. Weights are looked up by Hugging Face name under `prefix` and are
// immutable; all mutable state lives in the caller's KvCache and DecoderScratch.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "backend/ops.hpp"
#include "nn/kv_cache.hpp"
#include "nn/rope.hpp"
#include "weights/safetensors.hpp"

namespace qwen3tts {

struct DecoderStackShape {
    int64_t d_model = 0, d_ff = 0, n_layer = 0, n_head = 0, n_head_kv = 0, head_dim = 0;
    float eps = 1e-6f;
    double rope_theta = 1e6;
};

// Activation buffers for up to `max_tokens` tokens per forward call.
struct DecoderScratch {
    int64_t max_tokens = 0;
    std::vector<float> norm, q, k, v, attn, proj, gate, up, rope_cos, rope_sin;
    // Per one-row segment of a batched step: its cache's layer keys and values, its position.
    std::vector<const float*> keys, values;
    std::vector<int64_t> positions;
    void reserve(const DecoderStackShape& s, int64_t tokens);
};

class DecoderStack {
  public:
    // prefix: "talker.model." or "talker.code_predictor.model.". With `quant`, the seven
    // projection matrices of every layer are quantized now (rows split over `pool`); else they
    // are copied out of a mapping if `copy_mapped` (load_linear).
    DecoderStack(const WeightMap& weights, const std::string& prefix, const DecoderStackShape& s,
                 std::optional<backend::QuantFormat> quant = std::nullopt,
                 ThreadPool* pool = nullptr, bool copy_mapped = true);

    const DecoderStackShape& shape() const { return shape_; }
    // Bytes of projection weights one token's forward reads.
    size_t weight_bytes() const;
    KvCache make_cache(int64_t capacity) const;

    // Runs n tokens x[n, d_model] (modified in place: the residual stream) at positions
    // cache.length() .. +n, appends their keys/values to the cache, and writes the final-normed
    // hidden states to out[n, d_model].
    void forward(const backend::ExecContext& ctx, float* x, int64_t n, KvCache& cache,
                 DecoderScratch& scratch, float* out) const;

    // The same for several independent streams in one pass: x holds the segments' rows one
    // after the other, segment i's n rows continuing its own cache. The weights are read once
    // for all rows, and every row's result is the one a forward of its segment alone gives
    // (row-wise ops, attention per segment): what a stream computes does not depend on the
    // streams beside it.
    struct Segment {
        KvCache* cache;
        int64_t n;
    };
    void forward(const backend::ExecContext& ctx, float* x, const Segment* segments, int count,
                 DecoderScratch& scratch, float* out) const;

  private:
    void attend(const backend::ExecContext& ctx, const Segment* segs, int count, int64_t il,
                DecoderScratch& sc) const;

    struct Layer {
        backend::LinearWeights q, k, v, o, gate, up, down;
        std::vector<float> in_norm, post_norm, q_norm, k_norm;
    };
    DecoderStackShape shape_;
    std::vector<Layer> layers_;
    std::vector<float> final_norm_;
    RopeFrequencies rope_;
};

}  // namespace qwen3tts
