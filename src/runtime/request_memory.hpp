// The large buffers of a request — its KV caches and its codec stream — kept when it ends and
// handed to the next request instead of fresh memory. Fresh memory is paid for page by page
// at first write: on this project's VMs a 4 KiB page fault costs ~12 us where rewriting the
// page costs ~0.2 us, and a request writes ~23 MB (the 0.6B talker's KV cache alone is
// 229 KB per position, the codec stream 17 MB), so a new request spent ~75 ms in page faults,
// ~35 ms of them before its first audio. A kept buffer's old contents are read in one case
// only: the keys and values of a kept talker cache's prompt (below); other KV positions are
// written before they are attended to, and a codec stream is reset.
//
// Prompt reuse: a kept talker cache remembers the prompt rows (input embeddings) whose keys
// and values it holds. A later prompt that begins with the same rows -- the same voice or
// instruction, whose positions come before the text (spec talker.md §4.2-4.4) -- takes that
// cache and runs only the positions after the common beginning. The result is the same bit
// for bit: a position's keys and values depend only on the rows up to it, and every kernel of
// the prefill gives each row the same result whatever the rows beside it (docs/batching.md).
// The voice part of each prompt is also copied out once it has run (runtime/voice_prefixes.hpp),
// for a request whose voice's cache has gone to another voice or is still in use.
#pragma once

#include <memory>
#include <vector>

#include "backend/ops.hpp"
#include "model/codec_decoder.hpp"
#include "model/prompt.hpp"
#include "nn/decoder_stack.hpp"
#include "nn/kv_cache.hpp"
#include "runtime/voice_prefixes.hpp"

namespace qwen3tts {

// A cache taken from the pool, and how many positions of its prompt it already holds.
struct TakenCache {
    KvCache cache;
    int64_t reused_positions = 0;
};

class RequestMemoryPool {
  public:
    // Positions of a kept KV cache whose pages stay resident (the rest are given back): a
    // long request does not leave its whole cache behind. 256 frames are 20 s of speech.
    static constexpr int64_t kKeptPositions = 256;
    // New caches are made for a multiple of this many positions.
    static constexpr int64_t kCapacityStep = 256;

    // Keeps the buffers of at most `max_requests` requests; codec streams run in `ctx`.
    // `reuse_prompts`: whether take_cache may hand out a kept prompt's keys and values;
    // `voice_bytes`: the budget of the voices copied out.
    RequestMemoryPool(const backend::ExecContext& ctx, int max_requests, bool reuse_prompts = true,
                      size_t voice_bytes = VoicePrefixes::kDefaultBytes);

    // A cache for at least `capacity` positions of `stack`: of the kept ones large enough,
    // the one whose prompt shares the most leading rows with `prompt` (given, and reuse on),
    // then the smallest; else a new one (which may throw Error, see KvCache), and then the
    // largest kept one of that shape is freed. Of each stack shape the pool keeps the largest
    // `max_requests` caches. The taken cache's length is its reused positions: at most
    // prompt->length - 1 (the last prompt position runs, for its logits).
    TakenCache take_cache(const DecoderStack& stack, int64_t capacity,
                          const Prompt* prompt = nullptr);
    // `prompt_rows` [n, hidden]: the rows of the prompt whose keys and values `cache` holds from
    // position 0 (only those below kKeptPositions are remembered; empty: none).
    void keep_cache(KvCache cache, std::vector<float> prompt_rows = {}, int64_t hidden = 0);

    // The voice part of `prompt` (Prompt::voice_positions), whose first `run` positions
    // `cache` holds, copied out for later requests (reuse on).
    void remember_voice(const Prompt& prompt, int64_t run, const KvCache& cache);
    // When a copied voice shares more leading rows with `prompt` than the `reused` positions
    // `cache` holds already, copies it in (VoicePrefixes::restore); the positions `cache` now
    // holds (`reused` when none is copied).
    int64_t restore_voice(const Prompt& prompt, int64_t reused, KvCache& cache);

    // A codec stream at its start: a kept one of this decoder and chunk size, else a new one.
    std::unique_ptr<CodecStream> take_codec_stream(const CodecDecoder& codec, int max_chunk_frames);
    void keep_codec_stream(std::unique_ptr<CodecStream> stream);

  private:
    struct KeptCache {
        KvCache cache;
        std::vector<float> prompt_rows;  // [positions, hidden]
        int64_t hidden = 0;
    };
    backend::ExecContext ctx_;
    size_t max_requests_;
    bool reuse_prompts_;
    std::vector<KeptCache> caches_;
    VoicePrefixes voices_;
    std::vector<std::unique_ptr<CodecStream>> streams_;
};

}  // namespace qwen3tts
