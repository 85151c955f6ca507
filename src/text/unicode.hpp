// UTF-8 checks and Unicode normalisation for the tokenizer. All tables come from utf8proc;
// nothing here hard-codes Unicode properties.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace qwen3tts {

// Throws Error(invalid_argument) naming the byte offset of the first invalid UTF-8 sequence
// (overlong forms, surrogates and code points above U+10FFFF are invalid too). `what` names
// the input in the message, e.g. "tokenizer input".
void check_utf8(const std::string& s, const char* what);

// check_utf8 for text that arrives in pieces: `s` starts at byte `offset` of the whole input.
// Returns how many bytes of `s` are complete valid characters; the rest (at most 3 bytes) is a
// valid lead byte followed only by continuation bytes, fewer than it needs, which more input
// may complete. Any other invalid sequence throws the error check_utf8 would give on the whole
// input (its offset and first byte: every invalid sequence is reported at its first byte, so
// waiting for the rest of a character never moves the reported offset).
size_t check_utf8_prefix(std::string_view s, size_t offset, const char* what);

// The error check_utf8 gives for an invalid sequence starting at `offset` with byte `first`.
[[noreturn]] void throw_invalid_utf8(const char* what, size_t offset, unsigned char first);

// Whether NFC may be applied to s[0, pos) and to what follows separately: for every y,
// nfc(s + y) == nfc(s[0, pos)) + nfc(s[pos, end) + y). `s` is valid UTF-8 whose start is such a
// boundary (or the start of the text); `pos` (0 < pos < s.size()) starts a character c. True
// when the canonical decomposition of c starts with a character of combining class 0 (canonical
// reordering never moves anything across it, and it blocks every later character from
// composing with anything before it) and that character does not compose with what precedes
// it (nfc(s[0, pos) + c) == nfc(s[0, pos)) + nfc(c); composition with a class-0 character needs
// adjacency, so s[0, pos) alone decides it). ASCII characters always qualify.
bool nfc_boundary_before(std::string_view s, size_t pos);

// Whether nfc(s + y) == nfc(s) + nfc(y) for every y, judged by the last character c of `s`
// (valid UTF-8 whose start is an NFC boundary): true when no canonical decomposition,
// reordering or composition involves c (no decomposition, combining class 0, neither first nor
// second of a composition pair), so that c stays as it is and blocks everything after it.
// Listed, and checked against utf8proc's tables by test_incremental_tokenizer: ASCII but
// letters and '<', '=', '>' (which compose with U+0338); CJK symbols and punctuation
// U+3000-3029 and U+3030-303F (U+302A-302F are marks); CJK unified ideographs U+4E00-9FFF;
// halfwidth and fullwidth forms U+FF00-FFEF. Others answer false (wait for the next character).
bool nfc_final_at_end(std::string_view s);

// NFC (canonical composition) of valid UTF-8, as HF `normalizers.NFC`. The input must have
// passed check_utf8. Pure ASCII is returned unchanged without calling utf8proc.
std::string nfc(const std::string& s);

// Replaces each byte that does not start a valid UTF-8 sequence by U+FFFD, so that decode
// (diagnostics only) always returns valid UTF-8.
std::string utf8_lossy(const std::string& bytes);

}  // namespace qwen3tts
