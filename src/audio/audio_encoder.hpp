// Encoders behind AudioWriter (internal to the audio layer): each turns float frames into one
// format's bytes on a ByteSink. PCM-family formats are written here byte by byte; FLAC, Ogg Opus
// and MP3 go through libsndfile (its FLAC, libopus and LAME backends).
#pragma once

#include <cstddef>
#include <memory>

#include "audio/audio_format.hpp"
#include "audio/byte_sink.hpp"

namespace qwen3tts {

class AudioEncoder {
  public:
    virtual ~AudioEncoder() = default;
    // frames: interleaved floats, n_frames * channels values.
    virtual void write(const float* frames, size_t n_frames) = 0;
    // Hands every byte the codec has produced so far to the sink.
    virtual void flush() = 0;
    // Writes trailers and patches headers; the sink is committed by the caller.
    virtual void finish() = 0;
};

// Validates rate/channels for the format and writes the stream header.
std::unique_ptr<AudioEncoder> make_audio_encoder(AudioFormat format, ByteSink& sink,
                                                 int sample_rate, int channels);

std::unique_ptr<AudioEncoder> make_sndfile_encoder(AudioFormat format, ByteSink& sink,
                                                   int sample_rate, int channels);

}  // namespace qwen3tts
