// The tables of a loaded Tokenizer, shared by Tokenizer::encode and IncrementalTokenizer (which
// runs the same stages on text that arrives in pieces). Internal to the text layer.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "text/added_tokens.hpp"
#include "text/bpe.hpp"
#include "text/byte_level.hpp"
#include "text/pretokenizer.hpp"
#include "text/token_vocab.hpp"
#include "text/tokenizer.hpp"

namespace qwen3tts {

struct Tokenizer::Impl {
    explicit Impl(PretokenizerRegex r) : regex(r), pretokenizer(r) {}

    PretokenizerRegex regex;
    Pretokenizer pretokenizer;
    ByteLevelAlphabet alphabet;
    TokenVocab vocab;                    // byte-level token <-> id
    std::array<int32_t, 256> byte_id{};  // id of the one-byte token of each byte
    BpeMerges merges;
    AddedTokens added;
    size_t n_vocab = 0;

    void load_vocab(const std::string& path);
    void load_merges(const std::string& path);
    void load_added_tokens(const std::string& path);
    // Working memory of encode_piece, reused across the pieces of one text.
    struct Scratch {
        std::vector<int32_t> ids;
        BpeMerges::Scratch bpe;
    };
    // BPE of one pre-tokeniser piece (normalised text), appended to *out.
    void encode_piece(std::string_view piece, std::vector<int32_t>* out, Scratch* scratch) const;
    // NFC, pre-tokenisation and BPE of a run of text without added tokens.
    void encode_text(std::string_view raw, std::vector<int32_t>* out) const;
};

}  // namespace qwen3tts
