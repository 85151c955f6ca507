// speak|codes --batch: many requests through one Scheduler (docs/cli.md).
#pragma once

#include "args.hpp"

namespace qwen3tts::cli {

// --batch FILE.jsonl --out-dir DIR: audio (speak) or codes. Returns the exit status.
int run_batch(const Args& args, bool audio);
}  // namespace qwen3tts::cli
