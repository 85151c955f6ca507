// The keys and values of the voice part of recent prompts (Prompt::voice_positions: the
// positions before the text), copied out of a request's talker cache once its prompt has run.
// A request in a voice heard lately then starts after that part even when the cache that held
// it has gone to a request in another voice, or is still generating: a dialogue of several
// voices on one Synthesizer, a server's voices taking turns, a burst of requests in one voice.
// Copies of what the prompt's rows give, so bit for bit the keys and values a prefill would write
// (docs/batching.md, "Prompt reuse"). The least recently used go first when the bytes exceed the
// budget (a 0.6B or 1.7B talker voice of 9-30 positions takes 2-7 MB).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "model/prompt.hpp"
#include "nn/kv_cache.hpp"

namespace qwen3tts {

// How many leading rows of a [na, hidden] and b [nb, hidden] are equal, byte for byte.
int64_t leading_equal_rows(const float* a, int64_t na, const float* b, int64_t nb, int64_t hidden);

class VoicePrefixes {
  public:
    static constexpr size_t kDefaultBytes = size_t(32) << 20;
    explicit VoicePrefixes(size_t max_bytes = kDefaultBytes) : max_bytes_(max_bytes) {}

    // Remembers positions [0, n) of `cache`, whose keys and values come from `rows` [n, hidden],
    // unless a voice beginning with these rows is kept already (then it is the most recent).
    void remember(const float* rows, int64_t n, int64_t hidden, const KvCache& cache);
    // The most leading rows of `prompt` (at most prompt.length - 1: the last position runs for
    // its logits) that a kept voice of `cache`'s shape has. When that is more than `beyond`, the
    // voice's keys and values go into positions [0, n) of `cache`, its length becomes n, and n
    // is returned; else 0 and `cache` is unchanged.
    int64_t restore(const Prompt& prompt, int64_t beyond, KvCache& cache);

    size_t bytes() const { return bytes_; }
    size_t count() const { return voices_.size(); }

  private:
    struct Voice {
        std::vector<float> rows;          // [positions, hidden]
        std::vector<float> keys, values;  // [n_layer][positions][kv_dim]
        int64_t positions = 0, hidden = 0, n_layer = 0, kv_dim = 0;
        uint64_t last_use = 0;
        size_t bytes() const { return (rows.size() + keys.size() + values.size()) * sizeof(float); }
    };
    size_t max_bytes_;
    size_t bytes_ = 0;
    uint64_t clock_ = 0;
    std::vector<Voice> voices_;
};

}  // namespace qwen3tts
