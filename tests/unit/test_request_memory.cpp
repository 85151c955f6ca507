// The memory of ended requests kept for the next ones (runtime/request_memory.hpp): a kept KV
// cache or codec stream is handed out again instead of fresh memory, the pool keeps the
// largest caches and no more than it was sized for, a kept cache gives back the pages beyond
// its first positions, a reused codec stream decodes exactly like a new one, and a kept
// talker cache is handed to the prompt that shares the most leading rows with its own.
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
    KvCache a = pool.take_cache(stack, 100).cache;
    EXPECT_EQ(a.capacity(), 256);  // rounded up: other prompt lengths fit it too
    const float* memory = a.keys(0);
    a.set_length(40);
    pool.keep_cache(std::move(a));
    // Fits: the kept one, empty.
    KvCache again = pool.take_cache(stack, 200).cache;
    EXPECT_EQ(again.keys(0), memory);
    EXPECT_EQ(again.capacity(), 256);
    EXPECT_EQ(again.length(), 0);
    pool.keep_cache(std::move(again));
    // Too large for the kept one: a new one, and the kept one is freed (it would only sit
    // beside it), so that the next request gets the new one.
    KvCache big = pool.take_cache(stack, 257).cache;
    EXPECT_EQ(big.capacity(), 512);
    const float* big_memory = big.keys(0);
    pool.keep_cache(std::move(big));
    EXPECT_EQ(pool.take_cache(stack, 10).cache.keys(0), big_memory);
}

TEST(RequestMemoryPool, KeepsTheLargestCachesUpToItsSize) {
    const DecoderStack& stack = tiny_model()->talker().stack();
    RequestMemoryPool pool({}, 2);
    std::vector<KvCache> caches;
    std::vector<const float*> memory;
    for (int64_t capacity : {768, 256, 512}) {
        caches.push_back(pool.take_cache(stack, capacity).cache);
        memory.push_back(caches.back().keys(0));
    }
    for (KvCache& c : caches) pool.keep_cache(std::move(c));
    // The 256-position cache went; the smallest kept one that fits is handed out first.
    EXPECT_EQ(pool.take_cache(stack, 5).cache.keys(0), memory[2]);
    EXPECT_EQ(pool.take_cache(stack, 5).cache.keys(0), memory[0]);
    // The pool is empty now: a new cache (not the dropped one, which would be the same size).
    EXPECT_EQ(pool.take_cache(stack, 5).cache.capacity(), 256);
}

// A prompt of `rows` rows of width `hidden`, row i filled with values[i].
Prompt prompt_of(const std::vector<float>& values, int64_t hidden) {
    Prompt p;
    p.hidden = hidden;
    p.length = int64_t(values.size());
    for (float v : values) p.embeds.insert(p.embeds.end(), size_t(hidden), v);
    return p;
}

TEST(RequestMemoryPool, AKeptPromptIsReusedUpToItsFirstDifferentRow) {
    const DecoderStack& stack = tiny_model()->talker().stack();
    const int64_t H = 8;
    RequestMemoryPool pool({}, 1);
    const Prompt first = prompt_of({1, 2, 3, 4, 5}, H);
    TakenCache a = pool.take_cache(stack, 10, &first);
    EXPECT_EQ(a.reused_positions, 0);  // nothing kept yet
    a.cache.keys(0)[0] = 42.0f;        // stands for the prompt's keys
    pool.keep_cache(std::move(a.cache), first.embeds, H);

    Prompt second = prompt_of({1, 2, 3, 9, 5, 6}, H);
    second.embeds[size_t(2 * H + H - 1)] = -3.0f;  // row 2 differs in its last value only
    TakenCache b = pool.take_cache(stack, 10, &second);
    EXPECT_EQ(b.reused_positions, 2);
    EXPECT_EQ(b.cache.length(), 2);
    EXPECT_EQ(b.cache.keys(0)[0], 42.0f);
    pool.keep_cache(std::move(b.cache), second.embeds, H);

    // The same prompt again: all but its last position (which runs for the logits).
    TakenCache c = pool.take_cache(stack, 10, &second);
    EXPECT_EQ(c.reused_positions, 5);
    // Kept with only the rows that were run (a request that failed after 3 positions).
    std::vector<float> run = second.embeds;
    run.resize(size_t(3 * H));
    pool.keep_cache(std::move(c.cache), run, H);
    EXPECT_EQ(pool.take_cache(stack, 10, &second).reused_positions, 3);
}

TEST(RequestMemoryPool, ThePromptSharingTheMostRowsIsChosen) {
    const DecoderStack& stack = tiny_model()->talker().stack();
    const int64_t H = 4;
    RequestMemoryPool pool({}, 3);
    const Prompt small_far = prompt_of({1, 7, 7, 7}, H), big_near = prompt_of({1, 2, 3, 7}, H);
    TakenCache a = pool.take_cache(stack, 10, &small_far);
    TakenCache b = pool.take_cache(stack, 300, &big_near);
    const float* near_memory = b.cache.keys(0);
    pool.keep_cache(std::move(a.cache), small_far.embeds, H);
    pool.keep_cache(std::move(b.cache), big_near.embeds, H);
    const Prompt next = prompt_of({1, 2, 3, 4, 5}, H);
    TakenCache c = pool.take_cache(stack, 10, &next);
    EXPECT_EQ(c.cache.keys(0), near_memory);  // the larger one, for its 3 shared rows
    EXPECT_EQ(c.reused_positions, 3);
    // A prompt sharing nothing gets the smallest that fits, as before.
    const Prompt other = prompt_of({5, 5}, H);
    EXPECT_EQ(pool.take_cache(stack, 10, &other).reused_positions, 0);
}

TEST(RequestMemoryPool, NoReuseWhenTurnedOffOrBeyondTheKeptPositions) {
    const DecoderStack& stack = tiny_model()->talker().stack();
    const int64_t H = 2;
    const Prompt p = prompt_of({1, 2, 3}, H);
    RequestMemoryPool off({}, 1, false);
    off.keep_cache(off.take_cache(stack, 10, &p).cache, p.embeds, H);
    EXPECT_EQ(off.take_cache(stack, 10, &p).reused_positions, 0);

    // Pages beyond kKeptPositions are given back: their keys cannot be reused.
    const int64_t n = RequestMemoryPool::kKeptPositions + 10;
    const Prompt long_prompt = prompt_of(std::vector<float>(size_t(n), 1.0f), H);
    RequestMemoryPool pool({}, 1);
    pool.keep_cache(pool.take_cache(stack, n + 5, &long_prompt).cache, long_prompt.embeds, H);
    EXPECT_EQ(pool.take_cache(stack, n + 5, &long_prompt).reused_positions,
              RequestMemoryPool::kKeptPositions);
    // A prompt of one position has nothing to reuse (that position runs for the logits).
    const Prompt one = prompt_of({1}, H);
    pool.keep_cache(pool.take_cache(stack, 10, &one).cache, one.embeds, H);
    EXPECT_EQ(pool.take_cache(stack, 10, &one).reused_positions, 0);
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
