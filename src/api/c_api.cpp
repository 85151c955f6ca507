// C API: version, errors, memory and audio files. The model, voice and synthesis entry points
// are in c_api_model.cpp, c_api_voice.cpp and c_api_synthesis.cpp; every one of them catches
// every exception at the boundary and reports it as a code + a per-thread message.
#include "api/c_api_support.hpp"

namespace qwen3tts::capi {

std::string& last_error() {
    thread_local std::string message;
    return message;
}

}  // namespace qwen3tts::capi

using qwen3tts::capi::guarded;
using qwen3tts::capi::require;

extern "C" {

const char* qwen3tts_version(void) {
    // Built once (thread-safe static initialisation); the string lives until exit.
    static const std::string version = [] {
        try {
            return qwen3tts::version_string();
        } catch (...) {
            return std::string("unknown");
        }
    }();
    return version.c_str();
}

const char* qwen3tts_last_error(void) {
    return qwen3tts::capi::last_error().c_str();
}

void qwen3tts_free(void* p) {
    std::free(p);
}

int qwen3tts_write_audio(const char* path, const float* samples, size_t n_samples, int sample_rate,
                         const char* format) {
    return guarded([&] {
        require(path, "qwen3tts_write_audio", "path");
        if (n_samples > 0) require(samples, "qwen3tts_write_audio", "samples");
        qwen3tts::AudioFileWriter writer(path, sample_rate, format ? format : "");
        if (n_samples > 0) writer.write(samples, n_samples);
        writer.finish();
    });
}

}  // extern "C"
