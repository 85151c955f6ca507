// The model's config.json and generation_config.json (input: config, separator, generation
// config; see fuzz_support.hpp).
#include "core/error.hpp"
#include "fuzz_support.hpp"
#include "model/config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const auto [config, generation] = qwen3tts::fuzz::split_two(data, size);
    qwen3tts::fuzz::write_file("config.json", config);
    qwen3tts::fuzz::write_file("generation_config.json", generation);
    try {
        const qwen3tts::ModelConfig c = qwen3tts::load_model_config(qwen3tts::fuzz::scratch_dir());
        (void)c.languages();
        (void)c.speakers();
        (void)c.dialects();
    } catch (const qwen3tts::Error&) {
    }
    return 0;
}
