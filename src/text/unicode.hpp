// UTF-8 checks and Unicode normalisation for the tokenizer. All tables come from utf8proc;
// nothing here hard-codes Unicode properties.
#pragma once

#include <cstddef>
#include <string>

namespace qwen3tts {

// Throws Error(invalid_argument) naming the byte offset of the first invalid UTF-8 sequence
// (overlong forms, surrogates and code points above U+10FFFF are invalid too). `what` names
// the input in the message, e.g. "tokenizer input".
void check_utf8(const std::string& s, const char* what);

// NFC (canonical composition) of valid UTF-8, as HF `normalizers.NFC`. The input must have
// passed check_utf8. Pure ASCII is returned unchanged without calling utf8proc.
std::string nfc(const std::string& s);

// Replaces each byte that does not start a valid UTF-8 sequence by U+FFFD, so that decode
// (diagnostics only) always returns valid UTF-8.
std::string utf8_lossy(const std::string& bytes);

}  // namespace qwen3tts
