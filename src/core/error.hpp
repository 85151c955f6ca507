// Errors inside the library: the public Error type plus an always-on invariant check.
#pragma once

#include "qwen3tts/error.hpp"

namespace qwen3tts {

[[noreturn]] void fail_invariant(const char* expr, const char* file, int line);

}  // namespace qwen3tts

// Always-on invariant check (never compiled out): a failure is a bug, reported with file:line.
#define QWEN3TTS_ASSERT(expr) \
    ((expr) ? (void)0 : ::qwen3tts::fail_invariant(#expr, __FILE__, __LINE__))
