#include "audio/audio_format.hpp"

#include <cctype>

#include "core/error.hpp"
#include "core/strings.hpp"

namespace qwen3tts {
namespace {

const char* const k_known_names = "wav, wav-f32, pcm, flac, opus, mp3, npy";

}  // namespace

AudioFormat audio_format_from_name(const std::string& name) {
    const std::string n = ascii_lower(name);
    if (n == "wav") return AudioFormat::wav_pcm16;
    if (n == "wav-f32") return AudioFormat::wav_f32;
    if (n == "pcm" || n == "raw") return AudioFormat::raw_pcm16;
    if (n == "flac") return AudioFormat::flac;
    if (n == "opus" || n == "ogg") return AudioFormat::ogg_opus;
    if (n == "mp3") return AudioFormat::mp3;
    if (n == "npy") return AudioFormat::npy_f32;
    throw Error(ErrorCode::invalid_argument,
                "unknown audio format '" + name + "' (known: " + k_known_names + ")");
}

AudioFormat audio_format_from_path(const std::string& path) {
    if (path == "-")
        throw Error(ErrorCode::invalid_argument,
                    "cannot tell the audio format of stdout ('-') from its name; name the "
                    "format (one of " +
                        std::string(k_known_names) + ")");
    const size_t slash = path.find_last_of('/');
    const size_t dot = path.find_last_of('.');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash))
        throw Error(ErrorCode::invalid_argument,
                    path +
                        ": output file has no extension to tell its audio format from "
                        "(use .wav .pcm .raw .flac .ogg .opus .mp3 .npy, or name the format)");
    const std::string ext = ascii_lower(path.substr(dot));
    if (ext == ".wav") return AudioFormat::wav_pcm16;
    if (ext == ".pcm" || ext == ".raw") return AudioFormat::raw_pcm16;
    if (ext == ".flac") return AudioFormat::flac;
    if (ext == ".ogg" || ext == ".opus") return AudioFormat::ogg_opus;
    if (ext == ".mp3") return AudioFormat::mp3;
    if (ext == ".npy") return AudioFormat::npy_f32;
    throw Error(ErrorCode::invalid_argument,
                path + ": unknown audio file extension '" + path.substr(dot) +
                    "' (use .wav .pcm .raw .flac .ogg .opus .mp3 .npy, or name the format)");
}

const char* audio_format_name(AudioFormat format) {
    switch (format) {
        case AudioFormat::wav_pcm16:
            return "wav";
        case AudioFormat::wav_f32:
            return "wav-f32";
        case AudioFormat::raw_pcm16:
            return "pcm";
        case AudioFormat::flac:
            return "flac";
        case AudioFormat::ogg_opus:
            return "opus";
        case AudioFormat::mp3:
            return "mp3";
        case AudioFormat::npy_f32:
            return "npy";
    }
    QWEN3TTS_ASSERT(false);
    return "";
}

const char* audio_format_extension(AudioFormat format) {
    switch (format) {
        case AudioFormat::wav_pcm16:
            return ".wav";
        case AudioFormat::wav_f32:
            return ".wav";
        case AudioFormat::raw_pcm16:
            return ".pcm";
        case AudioFormat::flac:
            return ".flac";
        case AudioFormat::ogg_opus:
            return ".opus";
        case AudioFormat::mp3:
            return ".mp3";
        case AudioFormat::npy_f32:
            return ".npy";
    }
    QWEN3TTS_ASSERT(false);
    return "";
}

const char* audio_format_mime_type(AudioFormat format) {
    switch (format) {
        case AudioFormat::wav_pcm16:
            return "audio/wav";
        case AudioFormat::wav_f32:
            return "audio/wav";
        case AudioFormat::raw_pcm16:
            return "audio/pcm";  // not audio/L16: that is big-endian
        case AudioFormat::flac:
            return "audio/flac";
        case AudioFormat::ogg_opus:
            return "audio/ogg";
        case AudioFormat::mp3:
            return "audio/mpeg";
        case AudioFormat::npy_f32:
            return "application/octet-stream";
    }
    QWEN3TTS_ASSERT(false);
    return "";
}

bool audio_format_is_lossless(AudioFormat format) {
    return format != AudioFormat::ogg_opus && format != AudioFormat::mp3;
}

}  // namespace qwen3tts
