// Reader of a BPE vocabulary file (vocab.json: one JSON object mapping token -> id). Streams
// the JSON with a SAX handler straight into a TokenVocab: building nlohmann's DOM (an ordered
// map of 150k entries) first would triple the load time.
#pragma once

#include <cstdint>
#include <string>

#include "text/token_vocab.hpp"

namespace qwen3tts {

// Throws Error(io) when the file cannot be read and Error(format) naming the file (and the
// token, where there is one) when it is not an object of non-negative int32 ids, repeats a
// token, or its ids are not exactly 0..n-1 for n tokens (an id out of range, or two tokens
// sharing one). The result is indexed by id (TokenVocab::token).
TokenVocab read_vocab_json(const std::string& path);

}  // namespace qwen3tts
