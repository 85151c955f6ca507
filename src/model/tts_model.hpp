// A loaded Qwen3-TTS checkpoint: config, tokenizer and the memory-mapped networks. Immutable
// once loaded and shared (std::shared_ptr<const TtsModel>) by any number of sessions.
#pragma once

#include <future>
#include <memory>
#include <optional>
#include <string>

#include "model/code_predictor.hpp"
#include "model/config.hpp"
#include "model/talker.hpp"
#include "text/tokenizer.hpp"
#include "weights/safetensors.hpp"

namespace qwen3tts {

// How the weights every frame reads are held: which decoder stacks and output heads (the
// talker's codec_head, the code predictor's 15 lm_heads) are quantized at load (nullopt: used
// as stored, bf16 for the released checkpoints; docs/quantization.md measures each setting),
// and whether those used as stored are copied out of a memory mapping (load_linear).
struct QuantPlan {
    std::optional<backend::QuantFormat> talker, predictor;
    std::optional<backend::QuantFormat> talker_head, predictor_heads;
    bool copy_mapped = true;
};

class TtsModel {
  public:
    // `model` is a checkpoint directory or a Hugging Face repo id in the local cache.
    static std::shared_ptr<const TtsModel> load(const std::string& model,
                                                PretokenizerRegex regex = PretokenizerRegex::qwen2,
                                                LoadMode mode = LoadMode::mmap,
                                                const QuantPlan& quant = {});

    const ModelConfig& config() const { return config_; }
    const Tokenizer& tokenizer() const { return *tokenizer_; }
    const Talker& talker() const { return *talker_; }
    const CodePredictor& predictor() const { return *predictor_; }
    const WeightMap& weights() const { return weights_; }
    const std::string& dir() const { return config_.dir; }
    const QuantPlan& quant() const { return quant_; }

  private:
    TtsModel(ModelConfig config, WeightMap weights, std::future<Tokenizer> tokenizer,
             const QuantPlan& quant);
    void settle_tokenizer(std::future<Tokenizer>& tokenizer);

    ModelConfig config_;
    QuantPlan quant_;
    WeightMap weights_;
    std::optional<Tokenizer> tokenizer_;  // always set once constructed
    std::unique_ptr<Talker> talker_;
    std::unique_ptr<CodePredictor> predictor_;
};

}  // namespace qwen3tts
