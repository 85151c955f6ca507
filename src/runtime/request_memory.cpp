#include "runtime/request_memory.hpp"

#include <algorithm>
#include <utility>

namespace qwen3tts {

RequestMemoryPool::RequestMemoryPool(const backend::ExecContext& ctx, int max_requests,
                                     bool reuse_prompts, size_t voice_bytes)
    : ctx_(ctx),
      max_requests_(size_t(std::max(max_requests, 0))),
      reuse_prompts_(reuse_prompts),
      voices_(voice_bytes) {}

TakenCache RequestMemoryPool::take_cache(const DecoderStack& stack, int64_t capacity,
                                         const Prompt* prompt) {
    const DecoderStackShape& s = stack.shape();
    const int64_t kv_dim = s.n_head_kv * s.head_dim;
    auto best = caches_.end(), largest = caches_.end();
    int64_t best_reuse = 0;
    for (auto it = caches_.begin(); it != caches_.end(); ++it) {
        const KvCache& c = it->cache;
        if (c.n_layer() != s.n_layer || c.kv_dim() != kv_dim) continue;
        if (largest == caches_.end() || c.capacity() > largest->cache.capacity()) largest = it;
        if (c.capacity() < capacity) continue;
        int64_t reuse = 0;
        if (reuse_prompts_ && prompt && it->hidden == prompt->hidden && prompt->length > 1)
            reuse = std::min(leading_equal_rows(it->prompt_rows.data(),
                                                int64_t(it->prompt_rows.size()) / it->hidden,
                                                prompt->embeds.data(), prompt->length, it->hidden),
                             prompt->length - 1);
        if (best == caches_.end() || reuse > best_reuse ||
            (reuse == best_reuse && c.capacity() < best->cache.capacity())) {
            best = it;
            best_reuse = reuse;
        }
    }
    TakenCache taken;
    if (best == caches_.end()) {
        // None is large enough: the largest kept one would only sit beside the new one.
        if (largest != caches_.end()) caches_.erase(largest);
        // Rounded up, so that the next requests' prompts of other lengths fit it too (address
        // space only: pages are touched as positions are written).
        taken.cache =
            stack.make_cache((capacity + kCapacityStep - 1) / kCapacityStep * kCapacityStep);
    } else {
        taken = {std::move(best->cache), best_reuse};
        caches_.erase(best);
        taken.cache.set_length(best_reuse);
    }
    return taken;
}

void RequestMemoryPool::remember_voice(const Prompt& prompt, int64_t run, const KvCache& cache) {
    if (!reuse_prompts_) return;
    voices_.remember(prompt.embeds.data(), std::min(prompt.voice_positions, run), prompt.hidden,
                     cache);
}

int64_t RequestMemoryPool::restore_voice(const Prompt& prompt, int64_t reused, KvCache& cache) {
    if (!reuse_prompts_ || prompt.length < 2) return reused;
    const int64_t restored = voices_.restore(prompt, reused, cache);
    return restored > 0 ? restored : reused;
}

void RequestMemoryPool::keep_cache(KvCache cache, std::vector<float> prompt_rows, int64_t hidden) {
    if (cache.capacity() == 0 || max_requests_ == 0) return;
    // At most one cache per request of each stack shape: when full, the smallest goes (the
    // larger one serves every request the smaller one could).
    size_t same = 0;
    auto smallest = caches_.end();
    for (auto it = caches_.begin(); it != caches_.end(); ++it)
        if (it->cache.n_layer() == cache.n_layer() && it->cache.kv_dim() == cache.kv_dim()) {
            ++same;
            if (smallest == caches_.end() || it->cache.capacity() < smallest->cache.capacity())
                smallest = it;
        }
    cache.release_pages_from(kKeptPositions);
    // Only the positions whose pages stay can be reused.
    if (hidden > 0)
        prompt_rows.resize(std::min(prompt_rows.size(), size_t(kKeptPositions * hidden)));
    else
        prompt_rows.clear();
    KeptCache kept{std::move(cache), std::move(prompt_rows), hidden};
    if (same < max_requests_)
        caches_.push_back(std::move(kept));
    else if (smallest->cache.capacity() < kept.cache.capacity())
        *smallest = std::move(kept);
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
