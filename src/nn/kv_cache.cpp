#include "nn/kv_cache.hpp"

#include <sys/mman.h>

#include <utility>

#include "core/error.hpp"

namespace qwen3tts {

KvCache::KvCache(int64_t n_layer, int64_t capacity, int64_t kv_dim)
    : n_layer_(n_layer), capacity_(capacity), kv_dim_(kv_dim) {
    bytes_ = size_t(n_layer) * size_t(capacity) * size_t(kv_dim) * sizeof(float);
    void* p = ::mmap(nullptr, 2 * bytes_, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        throw Error(ErrorCode::invalid_argument,
                    "cannot reserve a KV cache of " + std::to_string(2 * bytes_ >> 20) +
                        " MiB (" + std::to_string(capacity) + " positions)");
    k_ = static_cast<float*>(p);
    v_ = k_ + bytes_ / sizeof(float);
}

KvCache::~KvCache() { release(); }

void KvCache::release() {
    if (k_) ::munmap(k_, 2 * bytes_);
    k_ = v_ = nullptr;
}

KvCache::KvCache(KvCache&& o) noexcept { *this = std::move(o); }

KvCache& KvCache::operator=(KvCache&& o) noexcept {
    if (this != &o) {
        release();
        n_layer_ = o.n_layer_;
        capacity_ = o.capacity_;
        kv_dim_ = o.kv_dim_;
        length_ = o.length_;
        k_ = o.k_;
        v_ = o.v_;
        bytes_ = o.bytes_;
        o.k_ = o.v_ = nullptr;
        o.bytes_ = 0;
    }
    return *this;
}

}  // namespace qwen3tts
