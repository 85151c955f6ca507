// Whole small text files (configs, vocabularies) into a string, refusing oversized files before
// reading them: a "config.json" of 50 GB is an error, not an allocation.
#pragma once

#include <cstdint>
#include <string>

namespace qwen3tts {

// Enough for any tokenizer or config file of a checkpoint (vocab.json is about 3 MB).
constexpr uint64_t kMaxTextFileBytes = uint64_t(64) << 20;

// Error(io) naming `what` and the file when it is missing, a directory or unreadable;
// Error(format) when it holds more than `max_bytes` (checked from its size before reading, and
// while reading for pipes and other files of unknown size).
std::string read_text_file(const std::string& path, const std::string& what = "file",
                           uint64_t max_bytes = kMaxTextFileBytes);

// The first whitespace-separated word of a small file (a Hugging Face ref holding a commit
// hash, a token file); "" when the file is missing, not a regular file, over 4 KiB or empty.
std::string read_first_word(const std::string& path);

}  // namespace qwen3tts
