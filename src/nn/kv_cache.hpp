// Key/value cache of a decoder stack: f32 [n_layer][capacity][n_kv·head_dim] for keys
// (post-RoPE) and values. The memory is reserved once for a request's maximum length
// (anonymous mmap, charged to the kernel's commit limit up front so a shortage is an Error at
// the request's start; pages become resident as positions are written), so the frame loop
// never allocates.
#pragma once

#include <cstddef>
#include <cstdint>

namespace qwen3tts {

class KvCache {
  public:
    KvCache() = default;
    KvCache(int64_t n_layer, int64_t capacity, int64_t kv_dim);
    ~KvCache();
    KvCache(KvCache&& other) noexcept;
    KvCache& operator=(KvCache&& other) noexcept;
    KvCache(const KvCache&) = delete;
    KvCache& operator=(const KvCache&) = delete;

    float* keys(int64_t layer) { return k_ + layer * capacity_ * kv_dim_; }
    float* values(int64_t layer) { return v_ + layer * capacity_ * kv_dim_; }
    const float* keys(int64_t layer) const { return k_ + layer * capacity_ * kv_dim_; }
    const float* values(int64_t layer) const { return v_ + layer * capacity_ * kv_dim_; }
    int64_t n_layer() const { return n_layer_; }
    int64_t capacity() const { return capacity_; }
    int64_t kv_dim() const { return kv_dim_; }
    int64_t length() const { return length_; }  // positions filled so far
    void set_length(int64_t n) { length_ = n; }
    void reset() { length_ = 0; }
    // Makes the pages of positions up to `end` (and a few beyond) resident before they are
    // written, a run of positions per call rather than a page fault per position and layer:
    // a fault costs ~12 µs on this project's VMs, a page populated by madvise ~0.7 µs, and a
    // talker step of the 0.6B writes a new 4 KiB page per layer for keys and for values.
    void make_resident(int64_t end);
    // Empties the cache and gives the pages of positions >= `keep` back to the system (they
    // read as zeros and become resident again when written): a kept cache holds on to the
    // memory of its first `keep` positions only.
    void release_pages_from(int64_t keep);

  private:
    void release();
    int64_t n_layer_ = 0, capacity_ = 0, kv_dim_ = 0, length_ = 0;
    int64_t resident_ = 0;  // positions below it were made resident
    float* k_ = nullptr;
    float* v_ = nullptr;
    size_t bytes_ = 0;
};

}  // namespace qwen3tts
