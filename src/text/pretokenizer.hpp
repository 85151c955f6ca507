// Regex pre-tokeniser of the Qwen2 tokenizer: splits normalised text into pieces that BPE
// then encodes independently (HF `pre_tokenizers.Split(pattern, behavior="isolated")`).
// PCRE2 in UTF + UCP mode, JIT-compiled when the library supports it.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace qwen3tts {

enum class PretokenizerRegex;

// The pattern text of each variant (spec talker.md §3.3).
const char* pretokenizer_pattern(PretokenizerRegex regex);

class Pretokenizer {
  public:
    explicit Pretokenizer(PretokenizerRegex regex);
    ~Pretokenizer();
    Pretokenizer(const Pretokenizer&) = delete;
    Pretokenizer& operator=(const Pretokenizer&) = delete;

    // Appends the pieces of `text` (valid UTF-8) to `pieces`: every match and every
    // non-empty gap between matches, in order, so that the pieces concatenate to `text`.
    // Thread-safe: the compiled pattern is shared read-only, match state is per call.
    void split(std::string_view text, std::vector<std::string_view>* pieces) const;

    // split() for text that more text may follow: appends only the leading pieces that no
    // continuation can change, and returns how many bytes of `text` they cover. A match is final
    // when PCRE2 finds it with PCRE2_PARTIAL_HARD: that mode reports a partial match as soon as
    // any path of the search (an earlier alternative, a greedy quantifier wanting more, the
    // lookahead of \s+(?!\S)) reaches the end of the text, so a complete match came from paths
    // that never looked past it, and an extended text takes the same paths to the same match.
    // The patterns have no lookbehind, so `text` may start at any earlier piece boundary.
    size_t split_complete(std::string_view text, std::vector<std::string_view>* pieces) const;

  private:
    struct Compiled;
    std::unique_ptr<Compiled> compiled_;
};

}  // namespace qwen3tts
