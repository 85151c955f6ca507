// The server's JSON request bodies: POST /v1/audio/speech bodies and WebSocket stream
// messages, parsed against a CustomVoice, VoiceDesign or Base model's description. The first
// byte picks the model type and the parser, the rest is the body; any bytes must end in a
// checked request or an ApiError (400, naming the field), never another exception.
#include <cstdint>
#include <optional>
#include <string>

#include "audio/time_stretch.hpp"
#include "core/strings.hpp"
#include "server/api_error.hpp"
#include "server/speech_request.hpp"

namespace {

using qwen3tts::ModelInfo;
using qwen3tts::server::SpeechContext;
using qwen3tts::server::SpeechRequest;

ModelInfo model_info(int type) {
    ModelInfo info;
    info.type = type == 0 ? "custom_voice" : type == 1 ? "voice_design" : "base";
    info.size = "0.6B";
    if (type == 0) {
        info.speakers = {"aiden", "dylan", "ryan"};
        info.speaker_dialects = {"", "beijing_dialect", ""};
    }
    info.languages = {"auto", "Chinese", "English", "Japanese"};
    info.language_codes = {"", "zh", "en", "ja"};
    info.takes_instruction = type != 2;
    info.n_codebook = 16;
    info.codebook_size = 2048;
    return info;
}

// What a parsed request must hold, whatever the body was.
void check(const SpeechRequest& r, const SpeechContext& c, bool text_required) {
    if (text_required && r.job.text.empty()) __builtin_trap();
    if (qwen3tts::utf8_code_points(r.job.text) > c.max_input_chars) __builtin_trap();
    if (!(r.speed >= qwen3tts::kMinSpeed && r.speed <= qwen3tts::kMaxSpeed)) __builtin_trap();
    if (c.info.type == "custom_voice" && r.job.options.speaker.empty()) __builtin_trap();
    if (c.info.type != "base" && (!r.ref_audio.empty() || !r.clone.ref_text.empty()))
        __builtin_trap();
    if (r.job.options.max_frames < 0 || r.job.options.segment_chars < 0) __builtin_trap();
    // Responses name the seed (X-Seed): always set, and one the body takes back (< 2^63).
    if (!r.job.options.seed || *r.job.options.seed > uint64_t(INT64_MAX)) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    const int type = data[0] % 3;
    const bool stream_message = (data[0] / 3) % 2 == 1;
    const std::string body(reinterpret_cast<const char*>(data + 1), size - 1);
    SpeechContext c;
    c.info = model_info(type);
    c.max_input_chars = 64;
    c.defaults.segment_chars = data[0] / 12 % 2 == 1 ? 30 : 0;  // serve --segment-chars
    // No voice is stored under any id: the lookup is asked, and the request refused.
    if (data[0] / 6 % 2 == 1) c.stored_voice = [](const std::string&) { return std::nullopt; };
    try {
        if (stream_message) {
            const auto m = qwen3tts::server::parse_stream_message(body, c);
            if (m.type == qwen3tts::server::StreamMessage::Type::config) {
                check(m.config, c, false);
                // Text that arrives as it is written is spoken in the streaming layout.
                if (m.config.job.options.text_layout != "streaming") __builtin_trap();
            }
        } else {
            check(qwen3tts::server::parse_speech_request(body, c), c, true);
        }
    } catch (const qwen3tts::server::ApiError& e) {
        if (e.status() != 400) __builtin_trap();
    }
    return 0;
}
