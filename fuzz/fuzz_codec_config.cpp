// speech_tokenizer/config.json: the codec decoder and encoder sections of the same text.
#include "core/error.hpp"
#include "model/codec_config.hpp"
#include "model/codec_encoder_config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        (void)qwen3tts::parse_codec_decoder_config(text, "fuzz");
    } catch (const qwen3tts::Error&) {
    }
    try {
        (void)qwen3tts::parse_codec_encoder_config(text, "fuzz");
    } catch (const qwen3tts::Error&) {
    }
    return 0;
}
