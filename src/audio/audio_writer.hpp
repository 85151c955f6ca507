// Writing synthesized audio: a streaming AudioWriter that appends chunks (one codec frame =
// 1920 samples at 24 kHz) to a file, stdout or a callback, and write_audio_file for one-shot use.
//
// Every write() ends with the encoded bytes handed to the OS (or callback), so a player
// reading the output starts after the first chunk. Encoders that buffer internally delay that:
// FLAC emits a frame per 4096 samples (~170 ms at 24 kHz), Opus an Ogg page per ~40 ms, MP3
// (LAME) lags its input by about one 576-sample granule plus the look-ahead; WAV, PCM and
// npy (to a file) go out at once. npy to a non-seekable output (pipe, callback) cannot patch
// its shape, so it is buffered and written whole at finish().
//
// A file path is written under a temporary name in the same directory and renamed on
// finish(); a writer destroyed without finish() removes the temporary, so a partial file never
// appears under the final name. Path "-" writes to stdout. On stdout (unless it is a regular
// file, which is patched like any file) and on a callback: WAV carries 0xFFFFFFFF sizes, read
// by sox, ffmpeg and browsers as "to the end of the stream"; FLAC leaves STREAMINFO's length
// and MD5 "unknown"; MP3 is constant-bit-rate without a Xing/LAME tag (see docs/audio.md).
//
// Samples are float in [-1, 1], interleaved when channels > 1. Integer formats (PCM16 WAV, raw,
// FLAC) scale by 32767 and round to nearest, as libsndfile/soundfile.write do, clipping values
// outside [-1, 1]; float formats (wav-f32, npy) store the values unchanged.
//
// Ownership and threads: a writer owns its output; use it from one thread at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "audio/audio_format.hpp"

namespace qwen3tts {

class ByteSink;
class AudioEncoder;

class AudioWriter {
  public:
    // Receives encoded bytes in order; may throw (the writer passes the exception on).
    using ByteCallback = std::function<void(const void* data, size_t n)>;

    // Throws Error(io) naming the path when it cannot be created (missing directory,
    // permission, a directory in the way), Error(invalid_argument) for a sample rate or channel
    // count the format cannot carry (Opus: 8/12/16/24/48 kHz; MP3: 8-48 kHz, 1-2 channels).
    AudioWriter(const std::string& path, AudioFormat format, int sample_rate, int channels = 1);
    // Streams to a callback (e.g. an HTTP response body); treated like a pipe (not seekable).
    AudioWriter(ByteCallback sink, AudioFormat format, int sample_rate, int channels = 1);
    ~AudioWriter();
    AudioWriter(const AudioWriter&) = delete;
    AudioWriter& operator=(const AudioWriter&) = delete;

    void write(const float* samples, size_t n_frames);
    void write(const std::vector<float>& samples) {
        write(samples.data(), samples.size() / size_t(channels_));
    }
    void flush();
    // Completes the stream (trailers, header sizes) and renames the file into place. Further
    // calls to write() throw.
    void finish();

    AudioFormat format() const { return format_; }
    int sample_rate() const { return sample_rate_; }
    int channels() const { return channels_; }
    int64_t frames_written() const { return frames_written_; }

  private:
    void open(std::unique_ptr<ByteSink> sink);

    AudioFormat format_;
    int sample_rate_;
    int channels_;
    int64_t frames_written_ = 0;
    bool finished_ = false;
    std::unique_ptr<ByteSink> sink_;
    std::unique_ptr<AudioEncoder> encoder_;
};

// One-shot write of mono samples (whole file, atomically).
void write_audio_file(const std::string& path, AudioFormat format,
                      const std::vector<float>& samples, int sample_rate);

}  // namespace qwen3tts
