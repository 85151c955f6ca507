// Output audio formats of the CLI and server: names, file extensions and MIME types, and how a
// format is chosen from an output path or a --format value.
#pragma once

#include <string>

namespace qwen3tts {

enum class AudioFormat {
    wav_pcm16,  // RIFF WAVE, 16-bit signed PCM
    wav_f32,    // RIFF WAVE, 32-bit IEEE float (WAVE_FORMAT_IEEE_FLOAT + fact chunk)
    raw_pcm16,  // header-less 16-bit signed little-endian PCM
    flac,       // FLAC, 16-bit
    ogg_opus,   // Opus in Ogg (RFC 7845)
    mp3,        // MPEG Layer III (LAME, VBR)
    npy_f32,    // NumPy .npy, little-endian float32, shape (n,) or (n, channels)
};

// From a --format value: "wav", "wav-f32", "pcm" (or "raw"), "flac", "opus" (or "ogg"),
// "mp3", "npy" (case-insensitive). Throws Error(invalid_argument) naming the value.
AudioFormat audio_format_from_name(const std::string& name);

// From an output path's extension: .wav .pcm/.raw .flac .ogg/.opus .mp3 .npy
// (case-insensitive). Throws Error(invalid_argument) naming the path, also for "-" (stdout
// has no extension: the caller must name the format).
AudioFormat audio_format_from_path(const std::string& path);

// Canonical --format name ("wav", "wav-f32", "pcm", "flac", "opus", "mp3", "npy").
const char* audio_format_name(AudioFormat format);
// Usual file extension with the dot (".wav", ".pcm", ".flac", ".opus", ".mp3", ".npy").
const char* audio_format_extension(AudioFormat format);
// MIME type for HTTP responses ("audio/wav", "audio/pcm" (little-endian; audio/L16 would
// mean big-endian), "audio/flac", "audio/ogg", "audio/mpeg", "application/octet-stream").
const char* audio_format_mime_type(AudioFormat format);

// True when the format stores the samples exactly up to its sample type (WAV, PCM, FLAC, npy).
bool audio_format_is_lossless(AudioFormat format);

}  // namespace qwen3tts
