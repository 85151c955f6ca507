// Error type used across the library: a code plus a message that names the file, tensor,
// field or value at fault. The C API turns it into a return code and a last-error string.
#pragma once

#include <stdexcept>
#include <string>

namespace qwen3tts {

enum class ErrorCode {
    invalid_argument = 1,  // a caller-supplied option or value is wrong
    io = 2,                // a file cannot be opened, read or written
    format = 3,            // a file is malformed (safetensors, json, npy, audio)
    model = 4,             // the checkpoint misses tensors or has wrong shapes/dtypes
    unsupported = 5,       // a valid request this build cannot serve
    internal = 6,          // a broken invariant (a bug)
};

class Error : public std::runtime_error {
public:
    Error(ErrorCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
    ErrorCode code() const noexcept { return code_; }

private:
    ErrorCode code_;
};

[[noreturn]] void fail_invariant(const char* expr, const char* file, int line);

}  // namespace qwen3tts

// Always-on invariant check (never compiled out): a failure is a bug, reported with file:line.
#define QWEN3TTS_ASSERT(expr) \
    ((expr) ? (void)0 : ::qwen3tts::fail_invariant(#expr, __FILE__, __LINE__))
