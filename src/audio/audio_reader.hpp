// Reading reference audio (voice cloning, `qwen3tts encode`): WAV, FLAC, Ogg Vorbis/Opus and MP3
// through libsndfile, down-mixed to mono float at the file's own rate — the equivalent of the
// reference's `librosa.load(path, sr=None, mono=True)`.
// ref: qwen_tts/inference/qwen3_tts_tokenizer.py and qwen3_tts_model.py, _load_audio_to_np
//      (see ../shared/spec/codec.md §5.1, talker.md §7.1).
// Thread-safe: functions keep no state.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace qwen3tts {

struct Audio {
    std::vector<float> samples;  // mono, nominally in [-1, 1]
    int sample_rate = 0;

    double duration_s() const {
        return sample_rate > 0 ? double(samples.size()) / double(sample_rate) : 0.0;
    }
    float peak() const;  // max |x|; 0 for empty audio
    float rms() const;   // sqrt(mean x²); 0 for empty audio
};

// Throws Error(io) when the file is missing, a directory or unreadable; Error(format) when it
// is not audio libsndfile can decode (naming the file and the formats read) or holds no
// samples. Multichannel audio becomes the mean of its channels (float32, channel order), as
// librosa.to_mono does. Integer PCM is scaled by 1/32768 (16-bit), 1/2^31 (32-bit), etc.
// max_seconds > 0 bounds the duration (and so the memory) before decoding: a file whose header
// states a longer duration is refused unread, one of unknown length is decoded only up to the
// limit; both are Error(invalid_argument) naming the file, its duration and the limit.
Audio read_audio_file(const std::string& path, double max_seconds = 0);

struct AudioFileInfo {
    int sample_rate = 0;
    int channels = 0;
    int64_t frames = -1;    // per channel; -1 when the container does not say, or a pipe
    std::string container;  // libsndfile's major format name, e.g. "WAV (Microsoft)"
    std::string encoding;   // libsndfile's subtype name, e.g. "Signed 16 bit PCM"
    double duration_s() const {
        return frames >= 0 && sample_rate > 0 ? double(frames) / double(sample_rate) : -1.0;
    }
};

// Header information without decoding (to reject over-long reference audio cheaply).
AudioFileInfo read_audio_file_info(const std::string& path);

}  // namespace qwen3tts
