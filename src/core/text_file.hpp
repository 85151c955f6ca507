// Whole small text files (configs) into a string; Error(io) naming the file when unreadable.
#pragma once

#include <string>

namespace qwen3tts {

std::string read_text_file(const std::string& path, const std::string& what = "file");

}  // namespace qwen3tts
