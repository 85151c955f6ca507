// What the public Voice handle holds (private to the api layer).
#pragma once

#include "model/voice_file.hpp"
#include "qwen3tts/qwen3tts.hpp"

namespace qwen3tts {

struct Voice::Impl {
    VoiceFile file;
    std::string path;  // where it was loaded from, for messages ("" when made in memory)
};

}  // namespace qwen3tts
