// Byte-pair encoding by merge rank over token ids (the `BPE` model of HF tokenizers with no
// dropout, no unk token, no continuing-subword prefix and no end-of-word suffix).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace qwen3tts {

class BpeMerges {
  public:
    // Registers the merge (left, right) -> merged with the next rank; returns false when the
    // pair is already known (a repeated line keeps its first rank, as HF's dict of ranks).
    bool add(int32_t left, int32_t right, int32_t merged);
    size_t size() const { return size_; }
    // Room for `merges` merges without regrowing (a hint).
    void reserve(size_t merges);

    // Working memory of apply(), reused across the pieces of one encode call so that short
    // pieces cost no allocation. One per thread; not shared.
    struct Scratch {
        struct Candidate {
            uint32_t rank;
            int pos;  // index of the left symbol
            int32_t left, right, merged;
        };
        std::vector<int> prev, next;
        std::vector<char> alive;
        std::vector<Candidate> heap;
    };

    // Merges `ids` (one id per initial symbol, i.e. per byte) in place: repeatedly applies
    // the lowest-ranked adjacent pair, leftmost first among equal ranks, until no adjacent
    // pair has a merge. O(n log n) with a heap, so long space-less pieces stay fast.
    void apply(std::vector<int32_t>* ids, Scratch* scratch) const;

  private:
    // An open-addressing table rather than std::unordered_map: no allocation per merge (150k
    // at load) and one cache line per lookup in apply().
    struct Merge {
        uint64_t key;
        uint32_t rank;  // kEmpty marks a free slot
        int32_t merged;
    };
    static constexpr uint32_t kEmpty = 0xffffffffu;
    static uint64_t key(int32_t left, int32_t right) {
        return (static_cast<uint64_t>(static_cast<uint32_t>(left)) << 32) |
               static_cast<uint32_t>(right);
    }
    // The slot holding `key`, or the free slot where it would go.
    size_t slot_of(uint64_t key) const {
        const size_t mask = slots_.size() - 1;
        uint64_t h = key * 0x9e3779b97f4a7c15ull;
        for (size_t i = (h ^ (h >> 29)) & mask;; i = (i + 1) & mask) {
            if (slots_[i].rank == kEmpty || slots_[i].key == key) return i;
        }
    }
    const Merge* find(int32_t left, int32_t right) const {
        if (slots_.empty()) return nullptr;
        const Merge& m = slots_[slot_of(key(left, right))];
        return m.rank == kEmpty ? nullptr : &m;
    }
    std::vector<Merge> slots_;  // size a power of two, at most 3/4 full
    size_t size_ = 0;
};

}  // namespace qwen3tts
