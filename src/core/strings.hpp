// Small string helpers shared by the parsers and messages.
#pragma once

#include <string>
#include <vector>

namespace qwen3tts {

// ASCII letters lowered (names in configs and options are ASCII; other bytes stay as they are).
std::string ascii_lower(std::string s);

// "a, b, c"
std::string join(const std::vector<std::string>& items, const std::string& separator = ", ");

}  // namespace qwen3tts
