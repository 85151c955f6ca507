// Tokenises text that arrives in pieces (an LLM writing a few characters at a time) and commits
// each id as soon as no later text can change it. Contract, for ANY cutting of a text T into
// pushes (inside a UTF-8 character, one byte at a time, empty pushes):
//   * after finish(), ids() == Tokenizer::encode(prefix + T + suffix);
//   * at every moment ids() is a prefix of that (an id, once committed, is never retracted);
//   * invalid UTF-8 gives the error check_utf8 gives on the whole of T (same byte offset).
// docs/streaming_text.md has examples; model/streaming_prompt.hpp uses it for the text to speak.
//
// Why each commit is safe. encode() runs four stages; the text flows through the same four
// here, and each stage holds back only the bytes whose result more text could still change:
//
// 1. UTF-8. A character cut by a push waits for its remaining bytes (check_utf8_prefix). Every
//    invalid sequence is reported at its first byte, so waiting never moves the reported offset;
//    a sequence that is invalid whatever follows is reported at once, a cut one at finish().
//
// 2. Added tokens ("<|im_end|>", ...), cut out of the raw text leftmost-longest before anything
//    else. The scan decides position i once the text from i on is not a proper prefix of an
//    added token: then every token that could match at i lies within the text already there, so
//    the longest match (or none) at i is known, and the scan resumes where encode's would.
//    Only a tail shorter than the longest added token (a "<" or "<|im_" at the end) waits.
//
// 3. NFC, which encode applies to each run of text between added tokens. NFC of a run equals
//    the concatenation of NFC of its parts when every cut is before a character c that
//    nfc_boundary_before accepts: c's decomposition starts with a combining-class-0 character
//    that does not compose with what precedes it. Canonical reordering never moves a character
//    across a class-0 one, and that character blocks everything after it from composing with
//    anything before it (text/unicode.hpp). So the run is normalised up to the last such
//    boundary; the character after it waits, because a later combining mark may compose with
//    or reorder against it ("e" + U+0301 → "é"). A last character that no decomposition,
//    reordering or composition involves (nfc_final_at_end: ASCII but letters and '<', '=', '>';
//    CJK ideographs, CJK and fullwidth punctuation) is normalised at once, so a space, a comma
//    or a "，" that ends a piece does not wait here.
//
// 4. Pre-tokeniser regex, then BPE within each piece. BPE merges only inside a piece and its
//    result for a piece is fixed once the piece's extent is, so only where pieces end matters.
//    Pieces are the successive matches of the regex over the normalised run, each starting
//    where the previous one ended; a match is final once PCRE2 finds it with
//    PCRE2_PARTIAL_HARD (Pretokenizer::split_complete): a complete match under that mode never
//    looked past the end of the text, not even on the alternatives it rejected before it, so
//    any continuation gives the same match. For the Qwen2 pattern that means:
//      (?i:'s|'t|'re|'ve|'m|'ll|'d)  an apostrophe waits for the one or two letters after it;
//      [^\r\n\p{L}\p{N}]?\p{L}+      a letter run (with one leading space or symbol) waits for a
//                                    character that is not a letter; a lone leading space or
//                                    symbol waits for the next character (" w" starts " world");
//      \p{N}                         a digit is one piece: final at once (the alternatives
//                                    before it reject a digit without looking further);
//       ?[^\s\p{L}\p{N}]+[\r\n]*     a punctuation run and the newlines right after it wait for
//                                    a character that is neither;
//      \s*[\r\n]+                    a whitespace run ending in newlines ("\n\n", " \n") waits
//      \s+(?!\S) | \s+               for the end of the whitespace run: which of these matches,
//                                    and whether the last space goes to the next word, depends
//                                    on the first non-space character after it.
//    The fixed-Mistral pattern has the same shape (its letter alternatives also stop at a case
//    change, which the partial match sees the same way), and no alternative of either pattern
//    looks behind, so matching may restart at the first uncommitted piece.
//    A run ends at an added token or at finish(); the rest of it is then split like encode.
//
// So the latest ids wait for at most: the rest of a cut character, an added-token prefix, and
// the first character that ends the current piece, plus one character more when that one is a
// letter or another character that a following combining mark could change (NFC).
//
// Cost: each byte passes each stage once, except that the regex restarts at the first
// uncommitted piece on each push; for a piece longer than 1 KiB it retries only after the
// pending text grew by a quarter, so one long space-less run costs O(n) overall, not O(n²).
//
// Not thread-safe: one instance per text, used by one thread at a time. After an exception
// the instance is unusable (later calls throw).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "text/tokenizer.hpp"

namespace qwen3tts {

class IncrementalTokenizer {
  public:
    // `what` names the pushed text in errors, as check_utf8 does ("tokenizer input" for
    // Tokenizer::encode, "the text to speak" for build_prompt). `prefix` is tokenised before the
    // first push and `suffix` by finish() after the last one, as parts of the same text (a chat
    // template around the caller's text); error offsets count the pushed bytes only.
    explicit IncrementalTokenizer(const Tokenizer& tokenizer, std::string what = "tokenizer input",
                                  std::string_view prefix = {}, std::string suffix = {});

    // Appends text, cut anywhere, and commits what no later text can change. Throws
    // Error(invalid_argument) for invalid UTF-8 (byte offset in the whole pushed text), for more
    // than Tokenizer::encode's input limit, and after finish().
    void push(std::string_view utf8_chunk);
    // Commits everything pushed so far as if the text ended here (without the suffix): a hard
    // cut, for a writer that pauses and wants its last word spoken now. The text after it is
    // tokenised on its own, so with flushes after T1, T2, ... the ids are
    // encode(prefix + T1) ++ encode(T2) ++ ... ++ encode(Tn + suffix) — the whole text's ids
    // when each cut is where a piece ends anyway (after ". " for example), else ids that
    // differ around the cut ("Hel" | "lo" is two words). Characters cut by a push stay
    // pending (they belong to the next part).
    void flush();
    // Ends the text: appends the suffix and commits everything. Throws for a character cut at
    // the end of the text (the error of check_utf8 on the whole text) and when called twice.
    void finish();

    // The committed ids: a prefix of encode(prefix + text + suffix), all of it after finish().
    const std::vector<int32_t>& ids() const { return ids_; }
    bool finished() const { return finished_; }
    // Bytes pushed so far.
    size_t text_bytes() const { return text_bytes_; }

  private:
    void require_usable() const;
    void feed(std::string_view valid_utf8);
    void scan_added_tokens(bool at_end);
    void advance_nfc();
    void commit_final_pieces();
    void end_run();

    std::shared_ptr<const Tokenizer::Impl> impl_;
    std::string what_;
    std::string suffix_;
    std::string cut_char_;    // stage 1: the first bytes of a character cut by a push
    std::string undecided_;   // stage 2: raw bytes where a longer added token may still start
    std::string raw_tail_;    // stage 3: raw text of the run since its last NFC boundary
    size_t nfc_checked_ = 0;  // bytes of raw_tail_ whose characters are known not boundaries
    std::string normalized_;  // stage 4: NFC text of the run from its first uncommitted piece
    size_t split_tried_ = 0;  // normalized_.size() when the regex last stopped short of the end
    std::vector<int32_t> ids_;
    size_t text_bytes_ = 0;
    bool finished_ = false;
    bool broken_ = false;
};

}  // namespace qwen3tts
