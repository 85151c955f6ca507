// The byte-level tokens of a BPE vocabulary: token <-> id, looked up by string_view.
// Written by hand rather than an std::unordered_map<std::string, int32_t> because loading is on
// every start's path: the map makes one allocation per token (150k of them, a third of the
// tokenizer's load time with their page faults and frees) and, in C++17, cannot be searched by
// string_view, so every merges.txt lookup built a string. Here the tokens live in one buffer and
// an open-addressing table of indices finds them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace qwen3tts {

class TokenVocab {
  public:
    // Room for about `tokens` tokens of `bytes` bytes in all without regrowing (hints only).
    void reserve(size_t tokens, size_t bytes);

    // Adds `token` with `id`; returns false (and adds nothing) when the token is already there.
    bool add(std::string_view token, int32_t id);

    // The id of `token`, or -1.
    int32_t find(std::string_view token) const;

    size_t size() const { return entries_.size(); }

    // Makes token(id) answer; call once every token is added and their ids are known to be
    // exactly 0..size()-1 (ids outside that range are left out).
    void index_ids();
    // The token of `id` (after index_ids), or "" when there is none.
    std::string_view token(int32_t id) const {
        if (id < 0 || static_cast<size_t>(id) >= by_id_.size() || by_id_[size_t(id)] == 0)
            return {};
        return text(entries_[by_id_[size_t(id)] - 1]);
    }

    // Calls f(token, id) for each token, in the order they were added.
    template <typename F>
    void for_each(F&& f) const {
        for (const Entry& e : entries_) f(text(e), e.id);
    }

  private:
    struct Entry {
        uint32_t offset, length;
        int32_t id;
    };
    std::string_view text(const Entry& e) const { return {bytes_.data() + e.offset, e.length}; }
    static uint64_t hash(std::string_view s);
    // The slot holding `token`'s entry, or the empty slot where it would go.
    size_t slot_of(std::string_view token, uint64_t h) const;
    static uint64_t slot_value(uint64_t h, size_t entry) {
        return (h & ~0xffffffffull) | (entry + 1);
    }
    void grow();

    std::string bytes_;           // every token, back to back
    std::vector<Entry> entries_;  // in the order added
    // Entry index + 1 in the low 32 bits (0 = empty), the high 32 bits of the token's hash
    // above, so that probing compares tokens only on a likely match. Size: a power of two.
    std::vector<uint64_t> slots_;
    std::vector<uint32_t> by_id_;  // entry index + 1 of each id; 0 = none
};

}  // namespace qwen3tts
