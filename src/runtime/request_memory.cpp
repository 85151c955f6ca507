#include "runtime/request_memory.hpp"

#include <algorithm>
#include <utility>

namespace qwen3tts {

RequestMemoryPool::RequestMemoryPool(const backend::ExecContext& ctx, int max_requests)
    : ctx_(ctx), max_requests_(size_t(std::max(max_requests, 0))) {}

KvCache RequestMemoryPool::take_cache(const DecoderStack& stack, int64_t capacity) {
    const DecoderStackShape& s = stack.shape();
    const int64_t kv_dim = s.n_head_kv * s.head_dim;
    auto best = caches_.end(), largest = caches_.end();
    for (auto it = caches_.begin(); it != caches_.end(); ++it) {
        if (it->n_layer() != s.n_layer || it->kv_dim() != kv_dim) continue;
        if (it->capacity() >= capacity &&
            (best == caches_.end() || it->capacity() < best->capacity()))
            best = it;
        if (largest == caches_.end() || it->capacity() > largest->capacity()) largest = it;
    }
    if (best == caches_.end()) {
        // None is large enough: the largest kept one would only sit beside the new one.
        if (largest != caches_.end()) caches_.erase(largest);
        // Rounded up, so that the next requests' prompts of other lengths fit it too (address
        // space only: pages are touched as positions are written).
        return stack.make_cache((capacity + kCapacityStep - 1) / kCapacityStep * kCapacityStep);
    }
    KvCache cache = std::move(*best);
    caches_.erase(best);
    return cache;
}

void RequestMemoryPool::keep_cache(KvCache cache) {
    if (cache.capacity() == 0 || max_requests_ == 0) return;
    // At most one cache per request of each stack shape: when full, the smallest goes (the
    // larger one serves every request the smaller one could).
    size_t same = 0;
    auto smallest = caches_.end();
    for (auto it = caches_.begin(); it != caches_.end(); ++it)
        if (it->n_layer() == cache.n_layer() && it->kv_dim() == cache.kv_dim()) {
            ++same;
            if (smallest == caches_.end() || it->capacity() < smallest->capacity()) smallest = it;
        }
    cache.release_pages_from(kKeptPositions);
    if (same < max_requests_)
        caches_.push_back(std::move(cache));
    else if (smallest->capacity() < cache.capacity())
        *smallest = std::move(cache);
}

std::unique_ptr<CodecStream> RequestMemoryPool::take_codec_stream(const CodecDecoder& codec,
                                                                  int max_chunk_frames) {
    for (auto it = streams_.begin(); it != streams_.end(); ++it)
        if (&(*it)->decoder() == &codec && (*it)->max_chunk_frames() == max_chunk_frames) {
            std::unique_ptr<CodecStream> stream = std::move(*it);
            streams_.erase(it);
            stream->reset();
            return stream;
        }
    return codec.new_stream(ctx_, max_chunk_frames);
}

void RequestMemoryPool::keep_codec_stream(std::unique_ptr<CodecStream> stream) {
    if (!stream || streams_.size() >= max_requests_) return;
    stream->set_tap(nullptr);
    streams_.push_back(std::move(stream));
}

}  // namespace qwen3tts
