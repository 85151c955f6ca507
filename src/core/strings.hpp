// Small string helpers shared by the parsers and messages.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace qwen3tts {

// ASCII letters lowered (names in configs and options are ASCII; other bytes stay as they are).
std::string ascii_lower(std::string s);

// "a, b, c"
std::string join(const std::vector<std::string>& items, const std::string& separator = ", ");

// The characters (code points) of UTF-8 text: its bytes that do not continue a character.
size_t utf8_code_points(const std::string& s);

}  // namespace qwen3tts
