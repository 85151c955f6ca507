// qwen3tts bench --streams N: throughput of N requests at once (continuous batching).
#pragma once

#include "args.hpp"

namespace qwen3tts::cli {

int bench_streams(const Args& args);

}  // namespace qwen3tts::cli
