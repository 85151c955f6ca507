#include "text/added_tokens.hpp"

#include <algorithm>

namespace qwen3tts {

void AddedTokens::add(const std::string& content, int32_t id) {
    if (content.empty()) return;  // HF ignores empty added tokens
    auto [it, inserted] = by_content_.emplace(content, id);
    if (!inserted) {
        it->second = id;  // the later entry wins, as in HF's added-token map
    }
    by_id_[id] = content;
    max_id_ = std::max(max_id_, id);
    max_length_ = std::max(max_length_, content.size());
    auto& bucket = by_first_byte_[static_cast<unsigned char>(content[0])];
    if (inserted) bucket.push_back(&it->first);  // keys of an unordered_map are stable
}

void AddedTokens::finish() {
    for (auto& bucket : by_first_byte_)
        std::stable_sort(
            bucket.begin(), bucket.end(),
            [](const std::string* a, const std::string* b) { return a->size() > b->size(); });
}

int32_t AddedTokens::match_at(std::string_view text, size_t i, size_t* length) const {
    const auto& bucket = by_first_byte_[static_cast<unsigned char>(text[i])];
    for (const std::string* tok : bucket) {  // longest first: the first hit is the longest
        if (text.compare(i, tok->size(), *tok) == 0) {
            *length = tok->size();
            return by_content_.at(*tok);
        }
    }
    return -1;
}

bool AddedTokens::proper_prefix_of_token(std::string_view tail) const {
    if (tail.empty()) return false;
    for (const std::string* tok : by_first_byte_[static_cast<unsigned char>(tail[0])])
        if (tok->size() > tail.size() && tok->compare(0, tail.size(), tail) == 0) return true;
    return false;
}

std::vector<AddedTokens::Segment> AddedTokens::split(std::string_view text) const {
    std::vector<Segment> out;
    size_t plain_start = 0;
    size_t i = 0;
    while (i < text.size()) {
        size_t length = 0;
        const int32_t id = match_at(text, i, &length);
        if (id < 0) {
            ++i;
            continue;
        }
        if (i > plain_start) out.push_back({text.substr(plain_start, i - plain_start), -1});
        out.push_back({text.substr(i, length), id});
        i += length;
        plain_start = i;
    }
    if (plain_start < text.size()) out.push_back({text.substr(plain_start), -1});
    return out;
}

int32_t AddedTokens::find(const std::string& content) const {
    auto it = by_content_.find(content);
    return it == by_content_.end() ? -1 : it->second;
}

const std::string* AddedTokens::content(int32_t id) const {
    auto it = by_id_.find(id);
    return it == by_id_.end() ? nullptr : &it->second;
}

}  // namespace qwen3tts
