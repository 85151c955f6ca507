// GPT-2 byte-level alphabet: every byte 0..255 is shown as one printable code point, so that
// BPE can work on strings of "characters" while covering arbitrary bytes.
// ref: openai/gpt-2 encoder.py bytes_to_unicode (same table in HF tokenizers ByteLevel).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace qwen3tts {

class ByteLevelAlphabet {
  public:
    ByteLevelAlphabet();

    // UTF-8 of the code point standing for byte `b` (e.g. 0x20 -> "Ġ" U+0120).
    const std::string& encode_byte(uint8_t b) const { return byte_to_utf8_[b]; }

    // Maps the byte-level form of a token ("Ġthe") back to raw bytes (" the"); returns false
    // when it contains a code point outside the alphabet.
    bool decode(std::string_view token, std::string* bytes) const;

  private:
    std::array<std::string, 256> byte_to_utf8_;
    std::array<int16_t, 324> cp_to_byte_;  // code points used are all < 324; -1 = unused
};

}  // namespace qwen3tts
