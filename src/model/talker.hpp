// The talker: Qwen3 decoder over the sum of a text track (text_embedding → text_projection)
// and a codec track (codec_embedding), with codec_head giving codebook-0 logits.
// Immutable after construction; thread-safe for concurrent sessions.
#pragma once

#include <memory>
#include <optional>

#include "backend/ops.hpp"
#include "model/config.hpp"
#include "nn/decoder_stack.hpp"

namespace qwen3tts {

class Talker {
  public:
    // quant: the decoder layers' projections quantized at load, head_quant: codec_head
    // (nullopt: as stored); copy_mapped: unquantized ones copied out of a mapping (load_linear).
    Talker(const WeightMap& weights, const TalkerConfig& config,
           std::optional<backend::QuantFormat> quant = std::nullopt, ThreadPool* pool = nullptr,
           std::optional<backend::QuantFormat> head_quant = std::nullopt, bool copy_mapped = true);

    int64_t hidden_size() const { return config_.hidden_size; }
    const DecoderStack& stack() const { return stack_; }
    const TensorView& codec_embedding() const { return *codec_embedding_; }  // [3072, H]

    // out[n, H] = fc2(silu(fc1(text_embedding[ids]) + b1)) + b2  (spec talker.md §5.3)
    void embed_text(const backend::ExecContext& ctx, const int32_t* ids, int64_t n,
                    float* out) const;
    // out[n, vocab] = hidden[n, H] · codec_headᵀ
    void logits(const backend::ExecContext& ctx, const float* hidden, int64_t n, float* out) const;

  private:
    TalkerConfig config_;
    DecoderStack stack_;
    const TensorView* text_embedding_;
    const TensorView* fc1_;
    const TensorView* fc2_;
    std::vector<float> fc1_bias_, fc2_bias_;
    const TensorView* codec_embedding_;
    backend::LinearWeights codec_head_;
};

DecoderStackShape stack_shape(const TransformerConfig& c);

}  // namespace qwen3tts
