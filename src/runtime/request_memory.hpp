// The large buffers of a request — its KV caches and its codec stream — kept when it ends and
// handed to the next request instead of fresh memory. Fresh memory is paid for page by page
// at first write: on this project's VMs a 4 KiB page fault costs ~12 us where rewriting the
// page costs ~0.2 us, and a request writes ~23 MB (the 0.6B talker's KV cache alone is
// 229 KB per position, the codec stream 17 MB), so a new request spent ~75 ms in page faults,
// ~35 ms of them before its first audio. A kept buffer's old contents are never read: KV
// positions are written before they are attended to, and a codec stream is reset.
#pragma once

#include <memory>
#include <vector>

#include "backend/ops.hpp"
#include "model/codec_decoder.hpp"
#include "nn/decoder_stack.hpp"
#include "nn/kv_cache.hpp"

namespace qwen3tts {

class RequestMemoryPool {
  public:
    // Positions of a kept KV cache whose pages stay resident (the rest are given back): a
    // long request does not leave its whole cache behind. 256 frames are 20 s of speech.
    static constexpr int64_t kKeptPositions = 256;
    // New caches are made for a multiple of this many positions.
    static constexpr int64_t kCapacityStep = 256;

    // Keeps the buffers of at most `max_requests` requests; codec streams run in `ctx`.
    RequestMemoryPool(const backend::ExecContext& ctx, int max_requests);

    // A cache for at least `capacity` positions of `stack`: the smallest kept one that is
    // large enough, else a new one (which may throw Error, see KvCache), and then the largest
    // kept one of that shape is freed. Of each stack shape the pool keeps the largest
    // `max_requests` caches.
    KvCache take_cache(const DecoderStack& stack, int64_t capacity);
    void keep_cache(KvCache cache);

    // A codec stream at its start: a kept one of this decoder and chunk size, else a new one.
    std::unique_ptr<CodecStream> take_codec_stream(const CodecDecoder& codec, int max_chunk_frames);
    void keep_codec_stream(std::unique_ptr<CodecStream> stream);

  private:
    backend::ExecContext ctx_;
    size_t max_requests_;
    std::vector<KvCache> caches_;
    std::vector<std::unique_ptr<CodecStream>> streams_;
};

}  // namespace qwen3tts
