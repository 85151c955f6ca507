// .voice loading and the check against a Base model (the tiny test checkpoint's config).
#include "core/error.hpp"
#include "fuzz_support.hpp"
#include "model/config.hpp"
#include "model/voice_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const qwen3tts::ModelConfig config =
        qwen3tts::load_model_config(QWEN3TTS_TEST_DATA "/models/tiny-base");
    const std::string path = qwen3tts::fuzz::write_file("input.voice", data, size);
    try {
        const qwen3tts::VoiceFile v = qwen3tts::load_voice_file(path);
        qwen3tts::check_voice_fits(v, config, 2048, path);
    } catch (const qwen3tts::Error&) {
    }
    return 0;
}
