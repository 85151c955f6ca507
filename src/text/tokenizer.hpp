// Qwen2 byte-level BPE tokenizer, equal in output to HF `Qwen2TokenizerFast` built from a
// checkpoint's vocab.json + merges.txt + tokenizer_config.json (spec talker.md §3):
//   added tokens split out literally (longest first) → NFC → regex pre-tokenisation →
//   GPT-2 byte-to-unicode → BPE by merge rank → ids from vocab.json. No BOS/EOS is added.
//
// Ownership and threads: a Tokenizer is immutable after load(); copies share the same
// read-only tables, and encode/decode may be called concurrently from any number of threads
// (no caches, all scratch state is per call).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace qwen3tts {

// Which pre-tokeniser regex to use (spec talker.md §3.3; see docs/tokenizer.md):
//   qwen2         — the Qwen2 regex the Qwen3 text models were trained with, what HF keeps when
//                   the model is loaded by hub id online. Default, however the model is named.
//   mistral_fixed — the "fixed Mistral" regex that transformers 4.57.3 substitutes when the
//                   official code (fix_mistral_regex=True) loads a local checkpoint directory
//                   whose config.json says transformers_version "4.57.3"; for parity with
//                   such a run only.
// They differ on lower-to-upper case boundaries inside words ("iPhone", "XMLHttpRequest"), on
// combining marks inside words (Thai), and by construction on contraction-like suffixes
// ("'sa") and on '/' after punctuation runs.
enum class PretokenizerRegex { qwen2, mistral_fixed };

class Tokenizer {
  public:
    // Reads vocab.json, merges.txt and tokenizer_config.json (added_tokens_decoder) from a
    // checkpoint directory. Throws Error naming the file when one is missing or malformed.
    static Tokenizer load(const std::string& model_dir,
                          PretokenizerRegex regex = PretokenizerRegex::qwen2);

    // Token ids of `utf8_text`; no BOS/EOS added. Throws Error(invalid_argument) giving the
    // byte offset when the text is not valid UTF-8.
    std::vector<int32_t> encode(const std::string& utf8_text) const;

    // Text of `ids` (for diagnostics): added tokens verbatim, other tokens mapped back to
    // bytes; byte sequences that are not valid UTF-8 become U+FFFD. Throws on unknown ids.
    std::string decode(const std::vector<int32_t>& ids) const;

    // Id of a token in vocabulary form ("Ġthe", "<|im_start|>"); -1 if unknown.
    int32_t token_to_id(const std::string& token) const;

    // Number of ids, added tokens included (HF `len(tokenizer)`, 151676 for Qwen3-TTS; the
    // text embedding has more rows, which no token reaches).
    size_t vocab_size() const;

    PretokenizerRegex regex() const;

  private:
    friend class IncrementalTokenizer;  // runs the same stages on text arriving in pieces
    struct Impl;
    explicit Tokenizer(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
    std::shared_ptr<const Impl> impl_;
};

}  // namespace qwen3tts
