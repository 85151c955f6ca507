// POST /v1/audio/speech bodies: OpenAI's fields (model, input, voice, instructions,
// response_format, speed, stream_format), this server's extensions (language, seed, greedy,
// sampling, max_frames, text_layout) and vLLM-Omni's Qwen3-TTS fields (task_type, ref_audio,
// ref_text, x_vector_only_mode, max_new_tokens), parsed and checked against the model. Every
// problem is an ApiError(400) naming the field (docs/serving.md lists them all). The job's seed
// is always set: a body without one gets a random seed below 2^53, which responses name.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>

#include "audio/audio_format.hpp"
#include "server/speech_service.hpp"

namespace qwen3tts::server {

// A Base model's stored voices as requests name them: the voice of an id, or nullopt when
// none has it (VoiceStore::find_voice).
using StoredVoiceLookup = std::function<std::optional<Voice>(const std::string& id)>;

struct SpeechContext {
    ModelInfo info;
    SynthesisOptions defaults;       // Model::default_options()
    StoredVoiceLookup stored_voice;  // empty: no stored voices
    size_t max_input_chars = 4096;   // for input and instructions, in code points
};

struct SpeechRequest {
    SpeechJob job;
    AudioFormat format = AudioFormat::mp3;
    std::string format_name = "mp3";  // as OpenAI names it
    bool sse = false;                 // stream_format "sse"
    double speed = 1.0;               // tempo, pitch kept (audio/time_stretch.hpp); 1 = as made
    // vLLM-Omni inline cloning: the decoded ref_audio bytes, cloned by the caller (slow).
    std::string ref_audio;
    VoiceCloneOptions clone;
};

SpeechRequest parse_speech_request(const std::string& body, const SpeechContext& context);

// One client message of the WebSocket stream (docs/serving.md), checked like a POST body:
// session.config carries the body's fields but input (the same parsing code), plus
// audio_frames. Problems are ApiError(400) naming the field.
struct StreamMessage {
    enum class Type { config, text, flush, done };
    Type type = Type::text;
    std::string text;         // input.text
    SpeechRequest config;     // session.config (text_layout "streaming")
    bool json_audio = false;  // session.config "audio_frames": "json"
};
StreamMessage parse_stream_message(const std::string& message, const SpeechContext& context);

// Standard base64 (RFC 4648, padding optional, no whitespace) of a data URL
// ("data:audio/wav;base64,...") or plain; throws ApiError(400) naming `param`.
std::string decode_base64(const std::string& text, const std::string& param);
std::string encode_base64(const void* data, size_t n);

}  // namespace qwen3tts::server
