// What the public Model handle holds (private to the api layer).
#pragma once

#include <mutex>

#include "model/codec_decoder.hpp"
#include "model/tts_model.hpp"
#include "qwen3tts/qwen3tts.hpp"

namespace qwen3tts {

struct Model::Impl {
    std::shared_ptr<const TtsModel> model;

    // The codec decoder is loaded on first use: `codes` never needs it.
    const CodecDecoder& codec() const {
        std::call_once(codec_once_, [&] { codec_ = CodecDecoder::load(model->dir() + "/speech_tokenizer"); });
        return *codec_;
    }

private:
    mutable std::once_flag codec_once_;
    mutable std::unique_ptr<CodecDecoder> codec_;
};

}  // namespace qwen3tts
