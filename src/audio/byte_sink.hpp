// Where an AudioWriter's encoded bytes go (internal to the audio layer): a temporary file renamed
// into place on commit, stdout, or a caller's callback. Encoders that must patch a header at the
// end (WAV sizes, npy shape, FLAC STREAMINFO, MP3 Xing tag) ask seekable() first and otherwise
// leave the "unknown length" values that streaming readers accept.
// Not thread-safe: one writer owns one sink.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>

namespace qwen3tts {

class ByteSink {
  public:
    virtual ~ByteSink() = default;
    virtual void write(const void* data, size_t n) = 0;
    virtual void flush() = 0;  // hand buffered bytes to the OS / callback
    virtual bool seekable() const = 0;
    virtual void seek(uint64_t offset) = 0;  // only when seekable()
    virtual uint64_t tell() const = 0;       // bytes from the start of the stream
    virtual uint64_t size() const = 0;       // largest offset written so far
    // Makes the output final (rename the temporary into place). Without it, the destructor
    // removes whatever was written to a temporary file.
    virtual void commit() = 0;
    // Name used in error messages.
    virtual const std::string& name() const = 0;
};

using ByteCallback = std::function<void(const void* data, size_t n)>;

// path "-" = stdout; else a temporary next to path, renamed on commit().
std::unique_ptr<ByteSink> open_path_sink(const std::string& path);
std::unique_ptr<ByteSink> open_callback_sink(ByteCallback callback);

}  // namespace qwen3tts
