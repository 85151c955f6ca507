// POST /v1/audio/speech bodies: OpenAI's fields (model, input, voice, instructions,
// response_format, speed, stream_format), this server's extensions (language, seed, greedy,
// sampling, max_frames, text_layout) and vLLM-Omni's Qwen3-TTS fields (task_type, ref_audio,
// ref_text, x_vector_only_mode, max_new_tokens), parsed and checked against the model. Every
// problem is an ApiError(400) naming the field (docs/serving.md lists them all).
#pragma once

#include <cstddef>
#include <string>

#include "audio/audio_format.hpp"
#include "server/speech_service.hpp"
#include "server/voice_store.hpp"

namespace qwen3tts::server {

struct SpeechContext {
    ModelInfo info;
    SynthesisOptions defaults;           // Model::default_options()
    const VoiceStore* voices = nullptr;  // null: no stored voices
    size_t max_input_chars = 4096;       // for input and instructions, in code points
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

// Standard base64 (RFC 4648, padding optional, no whitespace) of a data URL
// ("data:audio/wav;base64,...") or plain; throws ApiError(400) naming `param`.
std::string decode_base64(const std::string& text, const std::string& param);
std::string encode_base64(const void* data, size_t n);

}  // namespace qwen3tts::server
