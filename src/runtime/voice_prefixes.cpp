#include "runtime/voice_prefixes.hpp"

#include <algorithm>
#include <cstring>

namespace qwen3tts {

int64_t leading_equal_rows(const float* a, int64_t na, const float* b, int64_t nb, int64_t hidden) {
    if (hidden <= 0) return 0;
    const int64_t n = std::min(na, nb);
    const size_t row_bytes = size_t(hidden) * sizeof(float);
    for (int64_t i = 0; i < n; ++i)
        if (std::memcmp(a + i * hidden, b + i * hidden, row_bytes) != 0) return i;
    return n;
}

void VoicePrefixes::remember(const float* rows, int64_t n, int64_t hidden, const KvCache& cache) {
    n = std::min(n, cache.capacity());
    if (n <= 0 || hidden <= 0) return;
    for (Voice& v : voices_)
        if (v.hidden == hidden && v.n_layer == cache.n_layer() && v.kv_dim == cache.kv_dim() &&
            leading_equal_rows(v.rows.data(), v.positions, rows, n, hidden) == n) {
            v.last_use = ++clock_;
            return;
        }
    Voice v;
    v.positions = n;
    v.hidden = hidden;
    v.n_layer = cache.n_layer();
    v.kv_dim = cache.kv_dim();
    const size_t layer_floats = size_t(n * v.kv_dim);
    if ((size_t(n * hidden) + 2 * size_t(v.n_layer) * layer_floats) * sizeof(float) > max_bytes_)
        return;  // larger than the whole budget
    v.rows.assign(rows, rows + n * hidden);
    v.keys.resize(size_t(v.n_layer) * layer_floats);
    v.values.resize(size_t(v.n_layer) * layer_floats);
    for (int64_t l = 0; l < v.n_layer; ++l) {
        std::copy_n(cache.keys(l), layer_floats, v.keys.data() + size_t(l) * layer_floats);
        std::copy_n(cache.values(l), layer_floats, v.values.data() + size_t(l) * layer_floats);
    }
    v.last_use = ++clock_;
    bytes_ += v.bytes();
    voices_.push_back(std::move(v));
    while (bytes_ > max_bytes_) {
        auto oldest = std::min_element(
            voices_.begin(), voices_.end(),
            [](const Voice& a, const Voice& b) { return a.last_use < b.last_use; });
        bytes_ -= oldest->bytes();
        voices_.erase(oldest);
    }
}

int64_t VoicePrefixes::restore(const Prompt& prompt, int64_t beyond, KvCache& cache) {
    Voice* best = nullptr;
    int64_t best_n = beyond;
    for (Voice& v : voices_) {
        if (v.hidden != prompt.hidden || v.n_layer != cache.n_layer() || v.kv_dim != cache.kv_dim())
            continue;
        const int64_t n =
            std::min(leading_equal_rows(v.rows.data(), v.positions, prompt.embeds.data(),
                                        prompt.length, v.hidden),
                     std::min(prompt.length - 1, cache.capacity()));
        if (n > best_n) {
            best = &v;
            best_n = n;
        }
    }
    if (!best) return 0;
    // Resident in one call per layer, not a page fault per position and layer (KvCache).
    cache.make_resident(best_n);
    const size_t floats = size_t(best_n * best->kv_dim);
    const size_t layer_floats = size_t(best->positions * best->kv_dim);
    for (int64_t l = 0; l < best->n_layer; ++l) {
        std::copy_n(best->keys.data() + size_t(l) * layer_floats, floats, cache.keys(l));
        std::copy_n(best->values.data() + size_t(l) * layer_floats, floats, cache.values(l));
    }
    cache.set_length(best_n);
    best->last_use = ++clock_;
    return best_n;
}

}  // namespace qwen3tts
