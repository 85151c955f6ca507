// Voices cloned from a client's reference clip (POST /v1/audio/voices, and the inline
// ref_audio of POST /v1/audio/speech and of a WebSocket stream's session.config). A clone runs
// the speaker and codec encoders over the clip on the handler thread, seconds of CPU, so at
// most kMaxRunning run at once and one more is a 429 the client can retry.
#pragma once

#include <atomic>
#include <string>

#include "qwen3tts/qwen3tts.hpp"

namespace qwen3tts::server {

class VoiceCloning {
  public:
    static constexpr int kMaxRunning = 2;

    // Clips longer than max_seconds are refused.
    explicit VoiceCloning(double max_seconds) : max_seconds_(max_seconds) {}

    // The voice of `clip` (the bytes of an audio file). A clip the library refuses is
    // ApiError(400) with its message after "<field>: ", naming `field`.
    Voice clone(const Model& model, const std::string& clip, VoiceCloneOptions options,
                const std::string& field);

  private:
    const double max_seconds_;
    std::atomic<int> running_{0};
};

}  // namespace qwen3tts::server
