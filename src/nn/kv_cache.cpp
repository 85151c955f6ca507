#include "nn/kv_cache.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

#include "core/error.hpp"
#include "core/huge_buffer.hpp"

namespace qwen3tts {

KvCache::KvCache(int64_t n_layer, int64_t capacity, int64_t kv_dim)
    : n_layer_(n_layer), capacity_(capacity), kv_dim_(kv_dim) {
    const std::string shape = std::to_string(n_layer) + " layers x " + std::to_string(capacity) +
                              " positions x " + std::to_string(kv_dim) + " floats";
    size_t total = 0;
    if (n_layer < 0 || capacity < 0 || kv_dim < 0 ||
        __builtin_mul_overflow(size_t(n_layer), size_t(capacity), &bytes_) ||
        __builtin_mul_overflow(bytes_, size_t(kv_dim) * sizeof(float), &bytes_) ||
        __builtin_mul_overflow(bytes_, size_t(2), &total))
        throw Error(ErrorCode::invalid_argument, "KV cache size overflows: " + shape);
    if (total == 0) {
        bytes_ = 0;
        return;
    }
    // No MAP_NORESERVE: the kernel charges the whole cache to the commit limit now, so a
    // request that cannot fit fails here, at its start, rather than by an OOM kill mid-stream.
    // Pages are still only touched (and made resident) as positions are written.
    void* p = ::mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        const int err = errno;
        bytes_ = 0;
        throw Error(ErrorCode::invalid_argument, "cannot reserve " + std::to_string(total) +
                                                     " bytes (" + std::to_string(total >> 20) +
                                                     " MiB) for a KV cache of " + shape +
                                                     ", keys and values: " + std::strerror(err));
    }
    k_ = static_cast<float*>(p);
    v_ = k_ + bytes_ / sizeof(float);
}

void KvCache::make_resident(int64_t end) {
    constexpr int64_t kAhead = 16;  // positions made resident beyond `end`
    if (end <= resident_ || !k_) return;
    const int64_t to = std::min(capacity_, end + kAhead);
    const size_t layer_floats = size_t(capacity_ * kv_dim_);
    const size_t bytes = size_t((to - resident_) * kv_dim_) * sizeof(float);
    for (float* base : {k_, v_})
        for (int64_t l = 0; l < n_layer_; ++l)
            detail::populate_for_write(
                base + size_t(l) * layer_floats + size_t(resident_ * kv_dim_), bytes);
    resident_ = to;  // also when populating is not supported: the writes then fault as before
}

void KvCache::release_pages_from(int64_t keep) {
    length_ = 0;
    resident_ = std::min(resident_, std::max<int64_t>(keep, 0));
    if (!k_) return;
    const uintptr_t page = uintptr_t(::sysconf(_SC_PAGESIZE));
    const size_t layer_floats = size_t(capacity_ * kv_dim_);
    const size_t kept_floats = size_t(std::clamp<int64_t>(keep, 0, capacity_) * kv_dim_);
    for (float* base : {k_, v_})
        for (int64_t l = 0; l < n_layer_; ++l) {
            // Whole pages inside this layer's unkept span only: the neighbours' pages stay.
            const float* layer = base + size_t(l) * layer_floats;
            const uintptr_t start = (uintptr_t(layer + kept_floats) + page - 1) / page * page;
            const uintptr_t end = uintptr_t(layer + layer_floats) / page * page;
            if (start < end) ::madvise(reinterpret_cast<void*>(start), end - start, MADV_DONTNEED);
        }
}

KvCache::~KvCache() {
    release();
}

void KvCache::release() {
    if (k_) ::munmap(k_, 2 * bytes_);
    k_ = v_ = nullptr;
}

KvCache::KvCache(KvCache&& o) noexcept {
    *this = std::move(o);
}

KvCache& KvCache::operator=(KvCache&& o) noexcept {
    if (this != &o) {
        release();
        n_layer_ = o.n_layer_;
        capacity_ = o.capacity_;
        kv_dim_ = o.kv_dim_;
        length_ = o.length_;
        resident_ = o.resident_;
        k_ = o.k_;
        v_ = o.v_;
        bytes_ = o.bytes_;
        // The moved-from cache is an empty one (a pool given it keeps nothing).
        o.k_ = o.v_ = nullptr;
        o.bytes_ = 0;
        o.n_layer_ = o.capacity_ = o.kv_dim_ = o.length_ = o.resident_ = 0;
    }
    return *this;
}

}  // namespace qwen3tts
