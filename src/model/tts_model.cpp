#include "model/tts_model.hpp"

#include "core/error.hpp"
#include "core/log.hpp"
#include "weights/model_dir.hpp"

namespace qwen3tts {

TtsModel::TtsModel(ModelConfig config, WeightMap weights, Tokenizer tokenizer)
    : config_(std::move(config)), weights_(std::move(weights)), tokenizer_(std::move(tokenizer)) {
    talker_ = std::make_unique<Talker>(weights_, config_.talker);
    predictor_ = std::make_unique<CodePredictor>(weights_, config_.talker);

    // Everything else in the file is unexpected, except the speaker encoder of Base models
    // (used by voice cloning).
    std::vector<std::string> unexpected;
    for (const auto& name : weights_.unused()) {
        if (config_.type == ModelType::base && name.rfind("speaker_encoder.", 0) == 0) continue;
        unexpected.push_back(name);
    }
    if (!unexpected.empty()) {
        std::string list;
        for (size_t i = 0; i < unexpected.size() && i < 8; ++i)
            list += (i ? ", " : "") + unexpected[i] + " " +
                    weights_.all().at(unexpected[i]).shape_str();
        if (unexpected.size() > 8) list += ", ... (" + std::to_string(unexpected.size()) + " in all)";
        log_warning(weights_.source() + ": unexpected tensors ignored: " + list);
    }
}

std::shared_ptr<const TtsModel> TtsModel::load(const std::string& model, PretokenizerRegex regex,
                                               LoadMode mode) {
    const std::string dir = resolve_model_dir(model);
    ModelConfig config = load_model_config(dir);
    WeightMap weights = WeightMap::open(dir, "model", mode);
    Tokenizer tokenizer = Tokenizer::load(dir, regex);
    return std::shared_ptr<const TtsModel>(
        new TtsModel(std::move(config), std::move(weights), std::move(tokenizer)));
}

}  // namespace qwen3tts
