// Memory for arrays written once at load (quantized weights): uninitialized (no value-
// initialising pass) and advised for transparent huge pages, so filling it faults once per
// 2 MiB rather than every 4 KiB page (zeroing and faulting took most of a quantized load's
// time) and reading it every frame walks one TLB entry per 2 MiB. Buffers up to 8 MiB are
// packed into shared 2 MiB-aligned slabs (64-byte aligned each); larger ones are aligned to
// 2 MiB, their last partial huge page left to 4 KiB pages.
// Move-only; elements are trivially copyable types.
#pragma once

// Under AddressSanitizer every buffer is allocated by itself, so that reads past its end are
// caught (a slab has no red zones between its buffers).
#if defined(__SANITIZE_ADDRESS__)
#define QWEN3TTS_HUGE_BUFFER_SLABS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define QWEN3TTS_HUGE_BUFFER_SLABS 0
#endif
#endif
#ifndef QWEN3TTS_HUGE_BUFFER_SLABS
#define QWEN3TTS_HUGE_BUFFER_SLABS 1
#endif

#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>

namespace qwen3tts {

namespace detail {
void* huge_buffer_allocate(size_t bytes);  // Error(internal) "out of memory" when it fails
// Faults in the whole pages of [begin, begin + bytes) for writing in one system call
// (MADV_POPULATE_WRITE), which on paravirtualized VMs costs a fraction of taking one page fault
// per 4 KiB page; advice only (a kernel without it leaves the pages to fault on first write):
// false when it did not populate them. Partial pages at either end are left alone.
bool populate_for_write(void* begin, size_t bytes);
struct HugeBufferFree {
    void operator()(void* p) const noexcept;
};
}  // namespace detail

template <typename T>
class HugeBuffer {
    static_assert(std::is_trivially_copyable_v<T>, "HugeBuffer holds plain values");

  public:
    HugeBuffer() = default;
    explicit HugeBuffer(size_t n)
        : data_(static_cast<T*>(detail::huge_buffer_allocate(n * sizeof(T)))), size_(n) {}

    HugeBuffer(HugeBuffer&& o) noexcept
        : data_(std::move(o.data_)), size_(std::exchange(o.size_, 0)) {}
    HugeBuffer& operator=(HugeBuffer&& o) noexcept {
        data_ = std::move(o.data_);
        size_ = std::exchange(o.size_, 0);
        return *this;
    }

    T* data() { return data_.get(); }
    const T* data() const { return data_.get(); }
    size_t size() const { return size_; }
    T& operator[](size_t i) { return data_.get()[i]; }
    const T& operator[](size_t i) const { return data_.get()[i]; }

  private:
    std::unique_ptr<T, detail::HugeBufferFree> data_;
    size_t size_ = 0;
};

}  // namespace qwen3tts
