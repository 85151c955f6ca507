#include "server/speech_request.hpp"

#include <cmath>
#include <cstdio>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>

#include "audio/time_stretch.hpp"
#include "core/rng.hpp"
#include "core/strings.hpp"
#include "server/api_error.hpp"

namespace qwen3tts::server {

namespace {

using json = nlohmann::json;

const char* type_name(const json& v) {
    return v.is_string()    ? "a string"
           : v.is_boolean() ? "a boolean"
           : v.is_number()  ? "a number"
           : v.is_object()  ? "an object"
           : v.is_array()   ? "an array"
                            : "null";
}

// 0.25 rather than std::to_string's 0.250000.
std::string shortest(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

[[noreturn]] void bad(const std::string& param, const std::string& why) {
    throw ApiError(400, param + ": " + why, param);
}

// The fields of the body, each read once; what is left unread at the end is unknown.
class Body {
  public:
    explicit Body(const json& obj) : obj_(obj) {
        for (auto it = obj.begin(); it != obj.end(); ++it)
            if (!it.value().is_null()) unread_.insert(it.key());
    }
    const json* get(const std::string& key) {
        unread_.erase(key);
        const auto it = obj_.find(key);
        return it == obj_.end() || it->is_null() ? nullptr : &*it;
    }
    bool has(const std::string& key) const { return unread_.count(key) != 0; }
    std::string string(const std::string& key, const std::string& fallback) {
        const json* v = get(key);
        if (!v) return fallback;
        if (!v->is_string()) bad(key, std::string("must be a string, got ") + type_name(*v));
        return v->get<std::string>();
    }
    double number(const std::string& key, double fallback, double lo, double hi,
                  bool lo_open = false) {
        const json* v = get(key);
        if (!v) return fallback;
        if (!v->is_number()) bad(key, std::string("must be a number, got ") + type_name(*v));
        const double d = v->get<double>();
        if (!std::isfinite(d) || d < lo || d > hi || (lo_open && d == lo))
            bad(key, "must be in " + std::string(lo_open ? "(" : "[") + shortest(lo) + ", " +
                         shortest(hi) + "], got " + v->dump());
        return d;
    }
    int64_t integer(const std::string& key, int64_t fallback, int64_t lo, int64_t hi) {
        const json* v = get(key);
        if (!v) return fallback;
        if (!v->is_number_integer())
            bad(key, std::string("must be an integer, got ") +
                         (v->is_number() ? v->dump() : type_name(*v)));
        if (v->is_number_unsigned() ? v->get<uint64_t>() > uint64_t(hi)
                                    : v->get<int64_t>() < lo || v->get<int64_t>() > hi)
            bad(key, "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " +
                         v->dump());
        return v->get<int64_t>();
    }
    bool boolean(const std::string& key, bool fallback) {
        const json* v = get(key);
        if (!v) return fallback;
        if (!v->is_boolean()) bad(key, std::string("must be true or false, got ") + type_name(*v));
        return v->get<bool>();
    }
    void refuse_unknown() const {
        if (!unread_.empty())
            throw ApiError(400, "unrecognized request argument supplied: " + *unread_.begin(),
                           *unread_.begin());
    }

  private:
    const json& obj_;
    std::set<std::string> unread_;
};

struct Format {
    const char* name;
    AudioFormat format;
};
const Format kFormats[] = {{"mp3", AudioFormat::mp3},
                           {"opus", AudioFormat::ogg_opus},
                           {"flac", AudioFormat::flac},
                           {"wav", AudioFormat::wav_pcm16},
                           {"pcm", AudioFormat::raw_pcm16}};

void parse_format(Body& b, SpeechRequest& r) {
    const std::string name = b.string("response_format", "mp3");
    for (const Format& f : kFormats)
        if (name == f.name) {
            r.format = f.format;
            r.format_name = f.name;
            return;
        }
    if (name == "aac")
        throw ApiError(400,
                       "response_format: aac is not available (no AAC encoder in this build); "
                       "use mp3, opus, flac, wav or pcm",
                       "response_format", "unsupported_value");
    bad("response_format", "must be one of mp3, opus, flac, wav, pcm; got '" + name + "'");
}

std::string checked_text(Body& b, const std::string& key, const SpeechContext& c, bool required) {
    if (required && !b.has(key)) bad(key, "is required");
    const std::string s = b.string(key, "");
    if (required && s.empty()) bad(key, "must not be empty");
    if (utf8_code_points(s) > c.max_input_chars)
        throw ApiError(400,
                       key + ": is " + std::to_string(utf8_code_points(s)) +
                           " characters long; the limit is " + std::to_string(c.max_input_chars),
                       key, "string_above_max_length");
    return s;
}

std::string join(const std::vector<std::string>& v) {
    std::string out;
    for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
    return out;
}

void parse_language(Body& b, const SpeechContext& c, SynthesisOptions& o) {
    const std::string lang = ascii_lower(b.string("language", o.language));
    if (lang == "auto") {
        o.language = lang;
        return;
    }
    for (size_t i = 0; i < c.info.languages.size(); ++i)
        if (lang == ascii_lower(c.info.languages[i]) ||
            (i < c.info.language_codes.size() && lang == c.info.language_codes[i] &&
             !lang.empty())) {
            o.language = c.info.languages[i];
            return;
        }
    bad("language", "unknown language '" + lang + "'; this model knows: " + join(c.info.languages) +
                        " (or their codes)");
}

// "voice": a string, or OpenAI's {"id": "..."} object for custom voices.
std::string voice_name(Body& b) {
    const json* v = b.get("voice");
    if (!v) return "";
    if (v->is_string()) return v->get<std::string>();
    if (v->is_object() && v->size() == 1 && v->contains("id") && (*v)["id"].is_string())
        return (*v)["id"].get<std::string>();
    bad("voice", std::string("must be a string or {\"id\": \"...\"}, got ") + type_name(*v));
}

const char* task_type_of(const std::string& model_type) {
    return model_type == "custom_voice"   ? "CustomVoice"
           : model_type == "voice_design" ? "VoiceDesign"
                                          : "Base";
}

void parse_voice(Body& b, const SpeechContext& c, SpeechRequest& r) {
    SynthesisOptions& o = r.job.options;
    const std::string type = c.info.type;
    const std::string task = b.string("task_type", task_type_of(type));
    if (task != task_type_of(type))
        bad("task_type",
            "this server runs a " + std::string(task_type_of(type)) + " model; got '" + task + "'");
    const std::string voice = voice_name(b);
    const std::string ref_audio = b.string("ref_audio", "");
    r.clone.ref_text = b.string("ref_text", "");
    r.clone.x_vector_only = b.boolean("x_vector_only_mode", b.boolean("x_vector_only", false));
    if (type != "base" && (!ref_audio.empty() || !r.clone.ref_text.empty()))
        bad(ref_audio.empty() ? "ref_text" : "ref_audio",
            "voice cloning needs a Base model; this one is " + std::string(task_type_of(type)));
    if (type == "custom_voice") {
        if (voice.empty()) bad("voice", "is required: one of " + join(c.info.speakers));
        for (const auto& s : c.info.speakers)
            if (ascii_lower(voice) == ascii_lower(s)) {
                o.speaker = s;
                return;
            }
        bad("voice",
            "unknown voice '" + voice + "'; this model's speakers are " + join(c.info.speakers));
    }
    if (type == "voice_design") {
        if (o.instruct.empty())
            bad("instructions", "is required by a VoiceDesign model (it describes the voice)");
        return;  // voice is ignored: the instructions make the voice
    }
    // Base: a stored voice or an inline reference clip.
    if (!ref_audio.empty()) {
        if (!voice.empty()) bad("voice", "give either voice or ref_audio, not both");
        if (ref_audio.rfind("http://", 0) == 0 || ref_audio.rfind("https://", 0) == 0)
            bad("ref_audio",
                "URLs are not fetched by this server; send the audio as base64 or a "
                "data: URL");
        r.ref_audio = decode_base64(ref_audio, "ref_audio");
        if (!r.clone.x_vector_only && r.clone.ref_text.empty())
            bad("ref_text", "is required for in-context cloning (or set x_vector_only_mode)");
        return;
    }
    if (voice.empty())
        bad("voice",
            "is required: the id of a stored voice (GET /v1/audio/voices), or send "
            "ref_audio");
    std::optional<Voice> stored = c.stored_voice ? c.stored_voice(voice) : std::nullopt;
    if (!stored)
        throw ApiError(400, "voice: no stored voice has the id '" + voice + "'", "voice",
                       "voice_not_found");
    o.voice = std::move(*stored);
}

void parse_sampling(Body& b, SynthesisOptions& o) {
    // Without a seed the request gets one drawn here, so that the response can name it (the
    // X-Seed header, the done event) and the client can repeat what it heard. 53 bits: a JSON
    // number that every client, JavaScript included, holds exactly.
    o.seed = b.has("seed") ? uint64_t(b.integer("seed", 0, 0, std::numeric_limits<int64_t>::max()))
                           : random_seed() >> 11;
    const bool greedy = b.boolean("greedy", false);
    auto& t = o.talker;
    auto& p = o.predictor;
    t.temperature = float(b.number("temperature", t.temperature, 0, 100, true));
    t.top_k = int(b.integer("top_k", t.top_k, 0, 1 << 20));
    t.top_p = float(b.number("top_p", t.top_p, 0, 1, true));
    t.repetition_penalty =
        float(b.number("repetition_penalty", t.repetition_penalty, 0, 100, true));
    p.temperature = float(b.number("subtalker_temperature", p.temperature, 0, 100, true));
    p.top_k = int(b.integer("subtalker_top_k", p.top_k, 0, 1 << 20));
    p.top_p = float(b.number("subtalker_top_p", p.top_p, 0, 1, true));
    if (greedy) t.do_sample = p.do_sample = false;
    const char* frames_key = b.has("max_frames") ? "max_frames" : "max_new_tokens";
    o.max_frames = int(b.integer(frames_key, o.max_frames, 1, 1 << 20));
    o.text_layout = b.string("text_layout", o.text_layout);
    if (o.text_layout != "auto" && o.text_layout != "streaming" && o.text_layout != "non-streaming")
        bad("text_layout", "must be auto, streaming or non-streaming; got '" + o.text_layout + "'");
}

json parse_object(const std::string& text, const char* what) {
    json root;
    try {
        root = json::parse(text);
    } catch (const json::exception& e) {
        throw ApiError(400, std::string(what) + " is not valid JSON: " + e.what(), "",
                       "invalid_json");
    }
    if (!root.is_object())
        throw ApiError(400, std::string(what) + " must be a JSON object, got " + type_name(root),
                       "", "invalid_json");
    return root;
}

// The fields of a POST body and of a WebSocket session.config alike (all but input and the
// HTTP stream switches).
void parse_speech_fields(Body& b, const SpeechContext& c, SpeechRequest& r) {
    r.job.options.instruct = checked_text(b, "instructions", c, false);
    if (!r.job.options.instruct.empty() && !c.info.takes_instruction)
        bad("instructions",
            "this model takes no instructions (" + c.info.type + ", " + c.info.size + ")");
    parse_format(b, r);
    r.speed = b.number("speed", 1.0, kMinSpeed, kMaxSpeed);
    parse_language(b, c, r.job.options);
    parse_voice(b, c, r);
    parse_sampling(b, r.job.options);
    // A stream's text is cut into segments as it arrives, as the whole text would be.
    r.job.options.segment_chars =
        int(b.integer("segment_chars", r.job.options.segment_chars, 0, 1 << 20));
}

}  // namespace

SpeechRequest parse_speech_request(const std::string& body, const SpeechContext& c) {
    const json root = parse_object(body, "the body");
    Body b(root);
    SpeechRequest r;
    r.job.options = c.defaults;
    if (!b.has("model")) bad("model", "is required");
    b.string("model", "");  // one model per server: any name is taken (docs/serving.md)
    r.job.text = checked_text(b, "input", c, true);
    const std::string stream_format = b.string("stream_format", "audio");
    if (stream_format != "audio" && stream_format != "sse")
        bad("stream_format", "must be audio or sse; got '" + stream_format + "'");
    r.sse = stream_format == "sse";
    b.boolean("stream", true);  // vLLM-Omni's switch: responses always stream here
    parse_speech_fields(b, c, r);
    b.refuse_unknown();
    return r;
}

StreamMessage parse_stream_message(const std::string& message, const SpeechContext& c) {
    const json root = parse_object(message, "the message");
    Body b(root);
    if (!b.has("type")) bad("type", "is required");
    const std::string type = b.string("type", "");
    StreamMessage m;
    if (type == "session.config") {
        m.type = StreamMessage::Type::config;
        for (const char* key : {"input", "stream_format", "stream"})
            if (b.has(key))
                bad(key, "is not a session.config field (the text comes as input.text messages)");
        b.string("model", "");  // optional here: one model per server
        m.config.job.options = c.defaults;
        parse_speech_fields(b, c, m.config);
        std::string& layout = m.config.job.options.text_layout;
        if (layout == "non-streaming")
            bad("text_layout", "a stream is spoken in the streaming layout; got 'non-streaming'");
        layout = "streaming";
        const std::string frames = b.string("audio_frames", "binary");
        if (frames != "binary" && frames != "json")
            bad("audio_frames", "must be binary or json; got '" + frames + "'");
        m.json_audio = frames == "json";
    } else if (type == "input.text") {
        m.type = StreamMessage::Type::text;
        if (!b.has("text")) bad("text", "is required");
        m.text = b.string("text", "");
    } else if (type == "input.flush") {
        m.type = StreamMessage::Type::flush;
    } else if (type == "input.done") {
        m.type = StreamMessage::Type::done;
    } else {
        throw ApiError(400,
                       "type: unknown message type '" + type +
                           "'; expected session.config, input.text, input.flush or input.done",
                       "type", "unknown_message_type");
    }
    b.refuse_unknown();
    return m;
}

namespace {

const char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

}  // namespace

std::string decode_base64(const std::string& text, const std::string& param) {
    size_t start = 0;
    if (text.rfind("data:", 0) == 0) {
        const size_t comma = text.find(',');
        if (comma == std::string::npos || comma < 12 || text.compare(comma - 7, 7, ";base64") != 0)
            bad(param, "a data: URL must be base64 (data:<type>;base64,...)");
        start = comma + 1;
    }
    int value[256];
    for (int& v : value) v = -1;
    for (int i = 0; i < 64; ++i) value[static_cast<unsigned char>(kAlphabet[i])] = i;
    std::string out;
    out.reserve((text.size() - start) / 4 * 3 + 3);
    uint32_t acc = 0;
    int bits = 0;
    size_t end = text.size();
    while (end > start && text[end - 1] == '=') --end;
    if (text.size() - end > 2) bad(param, "is not valid base64 (too much '=' padding)");
    for (size_t i = start; i < end; ++i) {
        const int v = value[static_cast<unsigned char>(text[i])];
        if (v < 0)
            bad(param, "is not valid base64 (byte " + std::to_string(i - start) +
                           " is not in the "
                           "base64 alphabet)");
        acc = (acc << 6) | uint32_t(v);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out += char((acc >> bits) & 0xFF);
        }
    }
    if (out.empty()) bad(param, "is empty");
    return out;
}

std::string encode_base64(const void* data, size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    std::string out;
    out.reserve((n + 2) / 3 * 4);
    for (size_t i = 0; i < n; i += 3) {
        const uint32_t v = uint32_t(p[i]) << 16 | (i + 1 < n ? uint32_t(p[i + 1]) << 8 : 0) |
                           (i + 2 < n ? uint32_t(p[i + 2]) : 0);
        out += kAlphabet[(v >> 18) & 63];
        out += kAlphabet[(v >> 12) & 63];
        out += i + 1 < n ? kAlphabet[(v >> 6) & 63] : '=';
        out += i + 2 < n ? kAlphabet[v & 63] : '=';
    }
    return out;
}

}  // namespace qwen3tts::server
