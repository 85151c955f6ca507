// The memory of ended requests kept for the next ones (runtime/request_memory.hpp): a kept KV
// cache or codec stream is handed out again instead of fresh memory, the pool keeps the
// largest caches and no more than it was sized for, a kept cache gives back the pages beyond
// its first positions, and a reused codec stream decodes exactly like a new one.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "model/codec_decoder.hpp"
#include "model/tts_model.hpp"
#include "nn/kv_cache.hpp"
#include "runtime/request_memory.hpp"
#include "support/test_support.hpp"

namespace qwen3tts {
namespace {

std::shared_ptr<const TtsModel> tiny_model() {
    static const auto model = TtsModel::load(testing::model_dir("tiny-custom_voice"));
    return model;
}

TEST(RequestMemoryPool, AKeptCacheServesTheNextRequestThatFits) {
    const DecoderStack& stack = tiny_model()->talker().stack();
    RequestMemoryPool pool({}, 2);
    KvCache a = pool.take_cache(stack, 100);
    EXPECT_EQ(a.capacity(), 256);  // rounded up: other prompt lengths fit it too
    const float* memory = a.keys(0);
    a.set_length(40);
    pool.keep_cache(std::move(a));
    // Fits: the kept one, empty.
    KvCache again = pool.take_cache(stack, 200);
    EXPECT_EQ(again.keys(0), memory);
    EXPECT_EQ(again.capacity(), 256);
    EXPECT_EQ(again.length(), 0);
    pool.keep_cache(std::move(again));
    // Too large for the kept one: a new one, and the kept one is freed (it would only sit
    // beside it), so that the next request gets the new one.
    KvCache big = pool.take_cache(stack, 257);
    EXPECT_EQ(big.capacity(), 512);
    const float* big_memory = big.keys(0);
    pool.keep_cache(std::move(big));
    EXPECT_EQ(pool.take_cache(stack, 10).keys(0), big_memory);
}

TEST(RequestMemoryPool, KeepsTheLargestCachesUpToItsSize) {
    const DecoderStack& stack = tiny_model()->talker().stack();
    RequestMemoryPool pool({}, 2);
    std::vector<KvCache> caches;
    std::vector<const float*> memory;
    for (int64_t capacity : {768, 256, 512}) {
        caches.push_back(pool.take_cache(stack, capacity));
        memory.push_back(caches.back().keys(0));
    }
    for (KvCache& c : caches) pool.keep_cache(std::move(c));
    // The 256-position cache went; the smallest kept one that fits is handed out first.
    EXPECT_EQ(pool.take_cache(stack, 5).keys(0), memory[2]);
    EXPECT_EQ(pool.take_cache(stack, 5).keys(0), memory[0]);
    // The pool is empty now: a new cache (not the dropped one, which would be the same size).
    EXPECT_EQ(pool.take_cache(stack, 5).capacity(), 256);
}

TEST(KvCache, ReleasingPagesKeepsTheFirstPositionsAndEmptiesTheRest) {
    // 2 layers x 4096 positions x 1024 floats: 16 MiB of keys per layer.
    KvCache c(2, 4096, 1024);
    for (int64_t l = 0; l < 2; ++l)
        for (int64_t p = 0; p < 4096; ++p) {
            c.keys(l)[p * 1024] = float(p + 1);
            c.values(l)[p * 1024 + 7] = -float(p + 1);
        }
    c.set_length(4096);
    const size_t before = testing::resident_bytes();
    c.release_pages_from(256);
    const size_t after = testing::resident_bytes();
    // 2 layers x (4096 - 256) positions x 4 KiB, keys and values, given back.
    EXPECT_GE(before - after, size_t(2) * 3840 * 4096 * 2 * 95 / 100);
    EXPECT_EQ(c.length(), 0);
    for (int64_t l = 0; l < 2; ++l) {
        EXPECT_EQ(c.keys(l)[0], 1.0f);
        EXPECT_EQ(c.keys(l)[255 * 1024], 256.0f);
        EXPECT_EQ(c.values(l)[255 * 1024 + 7], -256.0f);
        EXPECT_EQ(c.keys(l)[256 * 1024], 0.0f);
        EXPECT_EQ(c.values(l)[4095 * 1024 + 7], 0.0f);
    }
}

TEST(RequestMemoryPool, AReusedCodecStreamDecodesLikeANewOne) {
    const auto codec = CodecDecoder::load(testing::model_dir("tiny-custom_voice"));
    std::mt19937 rng(3);
    std::uniform_int_distribution<int64_t> code(0, 2047);
    std::vector<int64_t> first(9 * 16), second(7 * 16);
    for (auto& v : first) v = code(rng);
    for (auto& v : second) v = code(rng);
    const std::vector<float> want = codec->new_stream({}, 8)->decode_frames(second.data(), 7);

    RequestMemoryPool pool({}, 1);
    auto used = pool.take_codec_stream(*codec, 8);
    used->decode_frames(first.data(), 8);  // state and scratch of another request
    used->decode_frames(first.data() + 8 * 16, 1);
    const CodecStream* memory = used.get();
    pool.keep_codec_stream(std::move(used));
    auto reused = pool.take_codec_stream(*codec, 8);
    EXPECT_EQ(reused.get(), memory);
    EXPECT_EQ(reused->frames_done(), 0);
    EXPECT_EQ(reused->decode_frames(second.data(), 7), want);
    // Another chunk size is another stream.
    pool.keep_codec_stream(std::move(reused));
    EXPECT_NE(pool.take_codec_stream(*codec, 4).get(), memory);
}

}  // namespace
}  // namespace qwen3tts
