#include "text/byte_level.hpp"

namespace qwen3tts {

namespace {

std::string utf8_of(uint32_t cp) {  // cp < 0x800 here
    std::string s;
    if (cp < 0x80) {
        s += static_cast<char>(cp);
    } else {
        s += static_cast<char>(0xC0 | (cp >> 6));
        s += static_cast<char>(0x80 | (cp & 0x3F));
    }
    return s;
}

}  // namespace

ByteLevelAlphabet::ByteLevelAlphabet() {
    cp_to_byte_.fill(-1);
    // Printable Latin-1 bytes keep their own code point: '!'..'~', '¡'..'¬', '®'..'ÿ'.
    // The remaining 68 bytes (controls, space, DEL, NBSP, soft hyphen) get 256, 257, ... in
    // byte order.
    auto keeps_itself = [](int b) {
        return (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
    };
    uint32_t next = 256;
    for (int b = 0; b < 256; ++b) {
        const uint32_t cp = keeps_itself(b) ? static_cast<uint32_t>(b) : next++;
        byte_to_utf8_[static_cast<size_t>(b)] = utf8_of(cp);
        cp_to_byte_[cp] = static_cast<int16_t>(b);
    }
}

bool ByteLevelAlphabet::decode(std::string_view token, std::string* bytes) const {
    size_t i = 0;
    while (i < token.size()) {
        const auto c0 = static_cast<unsigned char>(token[i]);
        uint32_t cp = 0;
        if (c0 < 0x80) {
            cp = c0;
            i += 1;
        } else if ((c0 & 0xE0) == 0xC0 && i + 1 < token.size()) {
            cp = ((c0 & 0x1Fu) << 6) | (static_cast<unsigned char>(token[i + 1]) & 0x3Fu);
            i += 2;
        } else {
            return false;
        }
        if (cp >= cp_to_byte_.size() || cp_to_byte_[cp] < 0) return false;
        bytes->push_back(static_cast<char>(cp_to_byte_[cp]));
    }
    return true;
}

}  // namespace qwen3tts
