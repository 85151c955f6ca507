#include "text/bpe.hpp"

#include <algorithm>

namespace qwen3tts {

void BpeMerges::reserve(size_t merges) {
    size_t want = 16;
    while (3 * want < 4 * merges) want *= 2;  // at most 3/4 full
    if (want <= slots_.size()) return;
    std::vector<Merge> old(want, Merge{0, kEmpty, 0});
    old.swap(slots_);
    for (const Merge& m : old) {
        if (m.rank != kEmpty) slots_[slot_of(m.key)] = m;
    }
}

bool BpeMerges::add(int32_t left, int32_t right, int32_t merged) {
    if (4 * (size_ + 1) > 3 * slots_.size()) reserve(2 * size_ + 8);
    const uint64_t k = key(left, right);
    Merge& slot = slots_[slot_of(k)];
    if (slot.rank != kEmpty) return false;
    slot = Merge{k, static_cast<uint32_t>(size_), merged};
    ++size_;
    return true;
}

// ref: huggingface/tokenizers tokenizers/src/models/bpe/word.rs, Word::merge_all (priority
// queue ordered by (rank, position); stale entries are skipped when popped).
void BpeMerges::apply(std::vector<int32_t>* ids, Scratch* scratch) const {
    std::vector<int32_t>& sym = *ids;
    const int n = static_cast<int>(sym.size());
    if (n < 2) return;

    // Symbols form a doubly linked list over the original positions; a merged symbol lives at
    // its leftmost position and its right partner is marked dead.
    std::vector<int>& prev = scratch->prev;
    std::vector<int>& next = scratch->next;
    std::vector<char>& alive = scratch->alive;
    prev.resize(static_cast<size_t>(n));
    next.resize(static_cast<size_t>(n));
    alive.assign(static_cast<size_t>(n), 1);
    for (int i = 0; i < n; ++i) {
        prev[static_cast<size_t>(i)] = i - 1;
        next[static_cast<size_t>(i)] = i + 1 < n ? i + 1 : -1;
    }

    using Candidate = Scratch::Candidate;
    // Min-heap on (rank, pos): std heaps are max-heaps, so "less" means "comes later".
    const auto later = [](const Candidate& a, const Candidate& b) {
        return a.rank != b.rank ? a.rank > b.rank : a.pos > b.pos;
    };
    std::vector<Candidate>& heap = scratch->heap;
    heap.clear();
    auto push = [&](int pos) {
        const int r = next[static_cast<size_t>(pos)];
        if (r < 0) return;
        const int32_t a = sym[static_cast<size_t>(pos)];
        const int32_t b = sym[static_cast<size_t>(r)];
        if (const Merge* m = find(a, b)) {
            heap.push_back({m->rank, pos, a, b, m->merged});
            std::push_heap(heap.begin(), heap.end(), later);
        }
    };
    for (int i = 0; i + 1 < n; ++i) push(i);

    while (!heap.empty()) {
        std::pop_heap(heap.begin(), heap.end(), later);
        const Candidate c = heap.back();
        heap.pop_back();
        const auto p = static_cast<size_t>(c.pos);
        if (!alive[p] || sym[p] != c.left) continue;  // stale: the left symbol changed
        const int r = next[p];
        if (r < 0 || sym[static_cast<size_t>(r)] != c.right) continue;  // stale right side
        sym[p] = c.merged;
        alive[static_cast<size_t>(r)] = 0;
        const int rr = next[static_cast<size_t>(r)];
        next[p] = rr;
        if (rr >= 0) prev[static_cast<size_t>(rr)] = c.pos;
        if (prev[p] >= 0) push(prev[p]);
        push(c.pos);
    }

    size_t out = 0;
    for (int i = 0; i >= 0; i = next[static_cast<size_t>(i)]) {
        sym[out++] = sym[static_cast<size_t>(i)];
    }
    sym.resize(out);
}

}  // namespace qwen3tts
