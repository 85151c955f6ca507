// Byte-pair encoding by merge rank over token ids (the `BPE` model of HF tokenizers with no
// dropout, no unk token, no continuing-subword prefix and no end-of-word suffix).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace qwen3tts {

class BpeMerges {
  public:
    // Registers the merge (left, right) -> merged with the next rank; returns false when the
    // pair is already known (a repeated line keeps its first rank, as HF's dict of ranks).
    bool add(int32_t left, int32_t right, int32_t merged);
    size_t size() const { return ranks_.size(); }

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
    struct Merge {
        uint32_t rank;
        int32_t merged;
    };
    static uint64_t key(int32_t left, int32_t right) {
        return (static_cast<uint64_t>(static_cast<uint32_t>(left)) << 32) |
               static_cast<uint32_t>(right);
    }
    const Merge* find(int32_t left, int32_t right) const {
        auto it = ranks_.find(key(left, right));
        return it == ranks_.end() ? nullptr : &it->second;
    }
    std::unordered_map<uint64_t, Merge> ranks_;
};

}  // namespace qwen3tts
