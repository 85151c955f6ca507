// Whole small text files (configs) into a string; Error(io) naming the file when unreadable,
// Error(format) when it is larger than `max_bytes` (a config is kilobytes; the limit keeps a
// wrong path, a device or a huge file from being read into memory).
#pragma once

#include <cstddef>
#include <string>

namespace qwen3tts {

constexpr size_t kMaxTextFileBytes = size_t(64) << 20;

std::string read_text_file(const std::string& path, const std::string& what = "file",
                           size_t max_bytes = kMaxTextFileBytes);

}  // namespace qwen3tts
