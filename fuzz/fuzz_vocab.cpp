// Tokenizer loading from a vocab.json and merges.txt (input: vocab, separator, merges; see
// fuzz_support.hpp) with the tiny checkpoint's tokenizer_config.json, then one encode.
#include <fstream>
#include <sstream>

#include "core/error.hpp"
#include "fuzz_support.hpp"
#include "text/tokenizer.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const bool config_written = [] {
        std::ifstream in(QWEN3TTS_TEST_DATA "/models/tiny-custom_voice/tokenizer_config.json");
        std::stringstream ss;
        ss << in.rdbuf();
        qwen3tts::fuzz::write_file("tokenizer_config.json", ss.str());
        return true;
    }();
    (void)config_written;
    const auto [vocab, merges] = qwen3tts::fuzz::split_two(data, size);
    qwen3tts::fuzz::write_file("vocab.json", vocab);
    qwen3tts::fuzz::write_file("merges.txt", merges);
    try {
        const auto tok = qwen3tts::Tokenizer::load(qwen3tts::fuzz::scratch_dir());
        const auto ids = tok.encode("Hello world, 123 <|im_start|>héllo");
        (void)tok.decode(ids);
    } catch (const qwen3tts::Error&) {
    }
    return 0;
}
