// The one error type of qwen3tts: a code plus a message naming the file, tensor, field or
// value at fault. Library functions throw it; the C API turns it into a code and a message.
#pragma once

#include <stdexcept>
#include <string>

#include "qwen3tts/export.h"

namespace qwen3tts {

enum class ErrorCode {
    invalid_argument = 1,  // a caller-supplied option or value is wrong
    io = 2,                // a file cannot be opened, read or written
    format = 3,            // a file is malformed (safetensors, json, npy, audio)
    model = 4,             // the checkpoint misses tensors or has wrong shapes/dtypes
    unsupported = 5,       // a valid request this build cannot serve
    internal = 6,          // a broken invariant (a bug)
    busy = 7,              // too many requests are waiting: try again later (HTTP 429)
};

// Exported with its type information, so that an Error thrown inside libqwen3tts.so is caught
// as qwen3tts::Error in the program.
class QWEN3TTS_API Error : public std::runtime_error {
  public:
    Error(ErrorCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
    ErrorCode code() const noexcept { return code_; }

  private:
    ErrorCode code_;
};

}  // namespace qwen3tts
