// Added tokens (tokenizer_config.json `added_tokens_decoder`): strings such as
// "<|im_start|>" that are cut out of the raw text before normalisation and BPE and map to one
// id each. Matching is leftmost-longest, as the Aho-Corasick matcher of HF tokenizers.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace qwen3tts {

class AddedTokens {
  public:
    void add(const std::string& content, int32_t id);
    // Orders the matcher (longest token first); call once after the last add(), before split().
    // Sorting once keeps loading linearithmic in the number of added tokens.
    void finish();
    bool empty() const { return by_content_.empty(); }

    // Splits `text` into segments: runs of ordinary text (id == -1) and added tokens.
    struct Segment {
        std::string_view text;
        int32_t id;  // -1 for ordinary text
    };
    std::vector<Segment> split(std::string_view text) const;

    // The longest added token that starts at text[i] and ends within `text`: its id, and its
    // length in *length; -1 if none. split() takes this match at the first i that has one.
    int32_t match_at(std::string_view text, size_t i, size_t* length) const;
    // Whether `tail` is a proper prefix of an added token: more text after `tail` could then
    // make a (longer) token start where `tail` starts.
    bool proper_prefix_of_token(std::string_view tail) const;
    size_t max_length() const { return max_length_; }

    int32_t find(const std::string& content) const;  // -1 if not an added token
    const std::string* content(int32_t id) const;    // nullptr if not an added token
    int32_t max_id() const { return max_id_; }

  private:
    std::unordered_map<std::string, int32_t> by_content_;
    std::unordered_map<int32_t, std::string> by_id_;
    // For each first byte: the tokens starting with it, longest first.
    std::vector<std::vector<const std::string*>> by_first_byte_ =
        std::vector<std::vector<const std::string*>>(256);
    int32_t max_id_ = -1;
    size_t max_length_ = 0;
};

}  // namespace qwen3tts
