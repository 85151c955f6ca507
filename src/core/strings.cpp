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

}  // namespace qwen3tts
