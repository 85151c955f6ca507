// Reference audio reading (WAV/FLAC/Ogg/MP3 through libsndfile) of arbitrary bytes.
#include "audio/audio_reader.hpp"
#include "core/error.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string path = qwen3tts::fuzz::write_file("input.audio", data, size);
    try {
        (void)qwen3tts::read_audio_file_info(path);
    } catch (const qwen3tts::Error&) {
    }
    try {
        const qwen3tts::Audio a = qwen3tts::read_audio_file(path);
        (void)a.peak();
        (void)a.rms();
    } catch (const qwen3tts::Error&) {
    }
    return 0;
}
