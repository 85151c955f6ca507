#include "core/huge_buffer.hpp"

#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>

#include "core/error.hpp"

namespace qwen3tts::detail {

namespace {
constexpr size_t kHugePage = size_t(2) << 20;
}

void* huge_buffer_allocate(size_t bytes) {
    if (bytes == 0) return nullptr;
    // Huge pages back the whole 2 MiB pages of the buffer only: below one, or for the part of
    // the last one past the end, they would clear (and keep resident) more memory than they save
    // faults (a 3 MiB q8 matrix took 4 MiB).
    const bool huge = bytes >= kHugePage;
    const size_t rounded = (bytes + 63) / 64 * 64;
    // posix_memalign, not aligned_alloc: the size need not be a multiple of the alignment (a
    // whole number of huge pages would make the tail resident for nothing).
    void* p = nullptr;
    if (::posix_memalign(&p, huge ? kHugePage : 64, rounded) != 0) p = nullptr;
    if (!p) throw Error(ErrorCode::internal, "out of memory (" + std::to_string(bytes) + " bytes)");
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
    std::free(p);
}

}  // namespace qwen3tts::detail
