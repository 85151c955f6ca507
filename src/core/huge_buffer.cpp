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
    // Below one huge page, rounding up would clear more memory than it saves faults.
    const bool huge = bytes >= kHugePage;
    const size_t align = huge ? kHugePage : 64;
    const size_t rounded = (bytes + align - 1) / align * align;
    void* p = std::aligned_alloc(align, rounded);
    if (!p) throw Error(ErrorCode::internal, "out of memory (" + std::to_string(bytes) + " bytes)");
    // Advice only: without transparent huge pages the buffer still works, with 4 KiB pages.
    if (huge) ::madvise(p, rounded, MADV_HUGEPAGE);
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
