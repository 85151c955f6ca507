// The code predictor ("sub-talker"): a small Qwen3 decoder that, for each frame, predicts
// codebooks 1..15 autoregressively from the talker's final hidden state and codebook 0
// (spec talker.md §5.4). Immutable; per-stream caches and scratch buffers belong to the caller.
#pragma once

#include <functional>
#include <optional>

#include "backend/ops.hpp"
#include "model/config.hpp"
#include "nn/decoder_stack.hpp"

namespace qwen3tts {

class CodePredictor {
  public:
    // Buffers for predicting the frames of up to `streams` streams at once.
    struct Scratch {
        int64_t streams = 0;
        DecoderScratch stack;
        std::vector<float> input, residual, hidden, logits;
    };

    // quant: the decoder layers' projections quantized at load, head_quant: the lm_heads
    // (nullopt: as stored); copy_mapped: unquantized ones copied out of a mapping (load_linear).
    CodePredictor(const WeightMap& weights, const TalkerConfig& talker_config,
                  std::optional<backend::QuantFormat> quant = std::nullopt,
                  ThreadPool* pool = nullptr,
                  std::optional<backend::QuantFormat> head_quant = std::nullopt,
                  bool copy_mapped = true);

    int n_codebooks() const { return n_codebooks_; }  // 16
    int vocab_size() const { return vocab_; }         // 2048
    // Table of codebook g (1..15), talker width.
    const TensorView& codec_embedding(int g) const { return *embeddings_[size_t(g - 1)]; }
    const DecoderStack& stack() const { return stack_; }

    // A stream's cache: the positions of one frame (it restarts every frame).
    KvCache make_cache() const;
    void reserve(Scratch& scratch, int64_t streams) const;

    // choose(s, g, logits[vocab]) picks codebook g's code of stream s from its raw logits (it
    // may modify them). For `streams` streams at once, each with its own cache: codes[s·16 ..]
    // get codebooks 1..n_codebooks-1; codes[s·16] (codebook 0) and past_hidden[s·H] (talker
    // width) are inputs. The weights are read once per step for all streams, and each stream's
    // codes are the ones predicting it alone gives.
    using Chooser = std::function<int32_t(int64_t stream, int g, float* logits)>;
    void predict(const backend::ExecContext& ctx, const float* past_hidden, int64_t streams,
                 int32_t* codes, KvCache* const* caches, Scratch& scratch,
                 const Chooser& choose) const;

  private:
    // in[n, talker width] → out[n, predictor width].
    void project(const backend::ExecContext& ctx, const float* in, int64_t n, float* out) const;

    int n_codebooks_ = 0, vocab_ = 0;
    int64_t talker_hidden_ = 0, hidden_ = 0;
    DecoderStack stack_;
    const TensorView* projection_ = nullptr;  // small_to_mtp_projection, null = identity
    std::vector<float> projection_bias_;
    const TensorView* talker_codec_embedding_;
    std::vector<const TensorView*> embeddings_;
    std::vector<backend::LinearWeights> heads_;
};

}  // namespace qwen3tts
