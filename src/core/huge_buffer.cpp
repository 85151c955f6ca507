#include "core/huge_buffer.hpp"

#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>

#include "core/error.hpp"

namespace qwen3tts::detail {

namespace {

constexpr size_t kHugePage = size_t(2) << 20;
// Buffers up to kSlabbed share slabs of kSlab bytes, packed one after another: a q4 matrix of
// the 0.6B (0.5-1.5 MiB) or a q8 one of 3 MiB would otherwise sit in 4 KiB pages, at least in
// part, and be filled one page fault per 4 KiB (measured: a q4 0.6B load 850-912 → 645-703 ms;
// generation did not change).
constexpr size_t kSlab = size_t(32) << 20;
#if QWEN3TTS_HUGE_BUFFER_SLABS
constexpr size_t kSlabbed = size_t(8) << 20;
#else
constexpr size_t kSlabbed = 0;  // under AddressSanitizer: each buffer its own, with red zones
#endif

void* checked(void* p, size_t bytes) {
    if (!p) throw Error(ErrorCode::internal, "out of memory (" + std::to_string(bytes) + " bytes)");
    return p;
}

// Slabs: 2 MiB-aligned mappings advised for huge pages, carved front to back. A slab goes back
// to the system when its last buffer is freed; the space of a buffer freed before then is not
// reused (these buffers live as long as the model that loaded them).
class Slabs {
  public:
    void* allocate(size_t bytes) {
        const size_t rounded = (bytes + 63) / 64 * 64;
        std::lock_guard<std::mutex> lock(mutex_);
        if (open_ == slabs_.end() || open_->second.used + rounded > kSlab) open_slab();
        Slab& s = open_->second;
        void* p = reinterpret_cast<void*>(open_->first + s.used);
        s.used += rounded;
        ++s.live;
        return p;
    }
    // False when p is not in a slab.
    bool free(void* p) {
        const auto at = reinterpret_cast<uintptr_t>(p);
        std::lock_guard<std::mutex> lock(mutex_);
        auto it = slabs_.upper_bound(at);
        if (it == slabs_.begin()) return false;
        --it;
        if (at >= it->first + kSlab) return false;
        if (--it->second.live == 0) {
            if (open_ == it) open_ = slabs_.end();
            ::munmap(reinterpret_cast<void*>(it->first), kSlab);
            slabs_.erase(it);
        }
        return true;
    }

  private:
    struct Slab {
        size_t used = 0, live = 0;
    };
    using Map = std::map<uintptr_t, Slab>;

    void open_slab() {
        // Map one huge page more than the slab, keep the 2 MiB-aligned slab and unmap the rest.
        const size_t span = kSlab + kHugePage;
        void* m = ::mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) checked(nullptr, kSlab);
        const auto start = reinterpret_cast<uintptr_t>(m);
        const uintptr_t base = (start + kHugePage - 1) & ~(kHugePage - 1);
        if (base > start) ::munmap(m, base - start);
        if (start + span > base + kSlab)
            ::munmap(reinterpret_cast<void*>(base + kSlab), start + span - (base + kSlab));
        // Advice only: without transparent huge pages the slab still works, with 4 KiB pages.
        ::madvise(reinterpret_cast<void*>(base), kSlab, MADV_HUGEPAGE);
        // The slab being left keeps its buffers; it goes when the last of them does.
        open_ = slabs_.emplace(base, Slab{}).first;
    }

    std::mutex mutex_;
    Map slabs_;
    Map::iterator open_ = slabs_.end();  // the slab being filled, if any
};

Slabs& slabs() {
    static Slabs* s = new Slabs;  // never destroyed: buffers may outlive static destruction
    return *s;
}

}  // namespace

void* huge_buffer_allocate(size_t bytes) {
    if (bytes == 0) return nullptr;
    if (bytes <= kSlabbed) return slabs().allocate(bytes);
    // Huge pages back the whole 2 MiB pages of a large buffer only: for the part of the last
    // one past the end they would clear (and keep resident) memory for nothing.
    const size_t rounded = (bytes + 63) / 64 * 64;
    // posix_memalign, not aligned_alloc: the size need not be a multiple of the alignment (a
    // whole number of huge pages would make the tail resident for nothing).
    void* p = nullptr;
    const bool huge = bytes >= kHugePage;
    if (::posix_memalign(&p, huge ? kHugePage : 64, rounded) != 0) p = nullptr;
    checked(p, bytes);
    // Advice only: without transparent huge pages the buffer still works, with 4 KiB pages.
    if (huge) ::madvise(p, bytes / kHugePage * kHugePage, MADV_HUGEPAGE);
    return p;
}

bool populate_for_write(void* begin, size_t bytes) {
    constexpr uintptr_t kPage = 4096;
    const uintptr_t first = (reinterpret_cast<uintptr_t>(begin) + kPage - 1) & ~(kPage - 1);
    const uintptr_t end = (reinterpret_cast<uintptr_t>(begin) + bytes) & ~(kPage - 1);
    return end > first &&
           ::madvise(reinterpret_cast<void*>(first), end - first, MADV_POPULATE_WRITE) == 0;
}

void HugeBufferFree::operator()(void* p) const noexcept {
    if (!slabs().free(p)) std::free(p);
}

}  // namespace qwen3tts::detail
