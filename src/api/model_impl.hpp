// What the public Model handle holds (private to the api layer).
#pragma once

#include "model/tts_model.hpp"
#include "qwen3tts/qwen3tts.hpp"

namespace qwen3tts {

struct Model::Impl {
    std::shared_ptr<const TtsModel> model;
};

}  // namespace qwen3tts
