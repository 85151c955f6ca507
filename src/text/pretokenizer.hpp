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

  private:
    struct Compiled;
    std::unique_ptr<Compiled> compiled_;
};

}  // namespace qwen3tts
