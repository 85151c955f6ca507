#include "text/token_vocab.hpp"

#include <limits>

#include "core/error.hpp"

namespace qwen3tts {

void TokenVocab::reserve(size_t tokens, size_t bytes) {
    bytes_.reserve(bytes);
    entries_.reserve(tokens);
    size_t want = 16;
    while (3 * want < 4 * tokens) want *= 2;  // at most 3/4 full
    if (want > slots_.size()) {
        slots_.assign(want, 0);
        for (size_t i = 0; i < entries_.size(); ++i) {
            const uint64_t h = hash(text(entries_[i]));
            slots_[slot_of(text(entries_[i]), h)] = slot_value(h, i);
        }
    }
}

// FNV-1a (tokens are a few bytes long: a byte loop is as fast as anything here), then a
// MurmurHash3 finaliser so that both the low bits (slot) and the high bits (tag) are mixed.
uint64_t TokenVocab::hash(std::string_view s) {
    uint64_t h = 14695981039346656037ull;
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    return h ^ (h >> 33);
}

size_t TokenVocab::slot_of(std::string_view token, uint64_t h) const {
    const size_t mask = slots_.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
        const uint64_t s = slots_[i];
        if (s == 0) return i;
        if ((s ^ h) >> 32 == 0 && text(entries_[(s & 0xffffffffu) - 1]) == token) return i;
    }
}

void TokenVocab::grow() {
    reserve(entries_.size() * 2 + 8, bytes_.capacity());
}

bool TokenVocab::add(std::string_view token, int32_t id) {
    // Offsets and lengths are 32-bit and the table holds entry index + 1 in 32 bits.
    if (bytes_.size() + token.size() > std::numeric_limits<uint32_t>::max() ||
        entries_.size() >= std::numeric_limits<uint32_t>::max() / 4)
        throw Error(ErrorCode::format, "tokenizer: the vocabulary is too large");
    if (4 * (entries_.size() + 1) > 3 * slots_.size()) grow();
    const uint64_t h = hash(token);
    const size_t slot = slot_of(token, h);
    if (slots_[slot] != 0) return false;
    entries_.push_back(
        {static_cast<uint32_t>(bytes_.size()), static_cast<uint32_t>(token.size()), id});
    bytes_.append(token);
    slots_[slot] = slot_value(h, entries_.size() - 1);
    return true;
}

int32_t TokenVocab::find(std::string_view token) const {
    if (slots_.empty()) return -1;
    const uint64_t s = slots_[slot_of(token, hash(token))];
    return s == 0 ? -1 : entries_[(s & 0xffffffffu) - 1].id;
}

void TokenVocab::index_ids() {
    by_id_.assign(entries_.size(), 0);
    for (size_t i = 0; i < entries_.size(); ++i) {
        const auto id = static_cast<size_t>(entries_[i].id);
        if (entries_[i].id >= 0 && id < by_id_.size()) by_id_[id] = static_cast<uint32_t>(i + 1);
    }
}

}  // namespace qwen3tts
