// What the public Model handle holds (private to the api layer).
#pragma once

#include <mutex>

#include "model/codec_decoder.hpp"
#include "model/codec_encoder.hpp"
#include "model/speaker_encoder.hpp"
#include "model/tts_model.hpp"
#include "qwen3tts/qwen3tts.hpp"

namespace qwen3tts {

struct Model::Impl {
    std::shared_ptr<const TtsModel> model;
    CodecDecoderOptions codec_options;

    // The codec decoder is loaded on first use: `codes` never needs it.
    const CodecDecoder& codec() const {
        std::call_once(codec_once_, [&] {
            codec_ = CodecDecoder::load(model->dir() + "/speech_tokenizer", codec_options);
        });
        return *codec_;
    }

    // The codec's frame layout (num_quantizers, codebook_size) without loading its weights:
    // what codes files and saved voices are checked against.
    const CodecDecoderConfig& codec_config() const {
        std::call_once(codec_config_once_, [&] {
            codec_config_ =
                load_codec_decoder_config(model->dir() + "/speech_tokenizer/config.json");
        });
        return codec_config_;
    }

    // Voice cloning parts (Base models), also loaded on first use.
    const SpeakerEncoder& speaker_encoder() const {
        std::call_once(speaker_once_, [&] {
            speaker_ =
                std::make_unique<SpeakerEncoder>(model->weights(), model->config().speaker_encoder);
        });
        return *speaker_;
    }
    const CodecEncoder& codec_encoder() const {
        std::call_once(encoder_once_,
                       [&] { encoder_ = CodecEncoder::load(model->dir() + "/speech_tokenizer"); });
        return *encoder_;
    }

  private:
    mutable std::once_flag codec_once_, codec_config_once_, speaker_once_, encoder_once_;
    mutable CodecDecoderConfig codec_config_;
    mutable std::unique_ptr<CodecDecoder> codec_;
    mutable std::unique_ptr<SpeakerEncoder> speaker_;
    mutable std::unique_ptr<CodecEncoder> encoder_;
};

}  // namespace qwen3tts
