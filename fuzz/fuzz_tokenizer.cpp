// Encoding arbitrary bytes as text with the tiny checkpoint's real tokenizer (both
// pre-tokeniser regexes), and decoding the ids back.
#include "core/error.hpp"
#include "text/tokenizer.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const qwen3tts::Tokenizer tokenizers[] = {
        qwen3tts::Tokenizer::load(QWEN3TTS_TEST_DATA "/models/tiny-custom_voice",
                                  qwen3tts::PretokenizerRegex::mistral_fixed),
        qwen3tts::Tokenizer::load(QWEN3TTS_TEST_DATA "/models/tiny-custom_voice",
                                  qwen3tts::PretokenizerRegex::qwen2)};
    const std::string text(reinterpret_cast<const char*>(data), size);
    for (const auto& tok : tokenizers) {
        try {
            (void)tok.decode(tok.encode(text));
        } catch (const qwen3tts::Error&) {
        }
    }
    return 0;
}
