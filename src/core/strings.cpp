#include "core/strings.hpp"

#include <cctype>

namespace qwen3tts {

std::string ascii_lower(std::string s) {
    for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

std::string join(const std::vector<std::string>& items, const std::string& separator) {
    std::string out;
    for (const auto& s : items) out += (out.empty() ? "" : separator) + s;
    return out;
}

size_t utf8_code_points(const std::string& s) {
    size_t n = 0;
    for (unsigned char c : s) n += (c & 0xC0) != 0x80;
    return n;
}

}  // namespace qwen3tts
