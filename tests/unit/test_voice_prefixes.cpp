// The copies of recent voices' keys and values (runtime/voice_prefixes.hpp): a kept voice is
// copied back bit for bit into a cache for a prompt that begins with its rows, up to the first
// row that differs and never the prompt's last position; the same voice is kept once; the
// least recently used goes when the budget is exceeded; other cache shapes are not served.
#include <gtest/gtest.h>

#include <vector>

#include "runtime/voice_prefixes.hpp"

namespace qwen3tts {
namespace {

constexpr int64_t kLayers = 2, kKvDim = 8, kHidden = 4;

// A prompt whose row i is filled with values[i].
Prompt prompt_of(const std::vector<float>& values) {
    Prompt p;
    p.hidden = kHidden;
    p.length = int64_t(values.size());
    for (float v : values) p.embeds.insert(p.embeds.end(), size_t(kHidden), v);
    return p;
}

// A cache whose key (value) at layer l, position t, lane j is tag + 100 l + 10 t + j (negated).
KvCache cache_of(float tag, int64_t positions) {
    KvCache c(kLayers, 64, kKvDim);
    for (int64_t l = 0; l < kLayers; ++l)
        for (int64_t t = 0; t < positions; ++t)
            for (int64_t j = 0; j < kKvDim; ++j) {
                c.keys(l)[t * kKvDim + j] = tag + float(100 * l + 10 * t + j);
                c.values(l)[t * kKvDim + j] = -(tag + float(100 * l + 10 * t + j));
            }
    return c;
}

size_t voice_bytes(int64_t positions) {
    return size_t(positions) * (kHidden + 2 * kLayers * kKvDim) * sizeof(float);
}

TEST(VoicePrefixes, AKeptVoiceIsCopiedBackUpToTheFirstDifferentRow) {
    VoicePrefixes voices;
    const Prompt a = prompt_of({1, 2, 3, 4});
    voices.remember(a.embeds.data(), 3, kHidden, cache_of(1000, 4));
    EXPECT_EQ(voices.bytes(), voice_bytes(3));

    KvCache c(kLayers, 64, kKvDim);
    EXPECT_EQ(voices.restore(prompt_of({1, 2, 9, 9, 9}), 0, c), 2);
    EXPECT_EQ(c.length(), 2);
    for (int64_t l = 0; l < kLayers; ++l) {
        EXPECT_EQ(c.keys(l)[1 * kKvDim + 7], 1000 + 100 * l + 17);
        EXPECT_EQ(c.values(l)[0], -(1000 + 100 * l));
        EXPECT_EQ(c.keys(l)[2 * kKvDim], 0.0f);  // beyond the shared rows: untouched
    }
    // Not beyond what the caller has already; never the prompt's last position.
    KvCache d(kLayers, 64, kKvDim);
    EXPECT_EQ(voices.restore(prompt_of({1, 2, 9}), 2, d), 0);
    EXPECT_EQ(d.length(), 0);
    EXPECT_EQ(voices.restore(prompt_of({1, 2, 3}), 0, d), 2);
    EXPECT_EQ(voices.restore(prompt_of({1, 2, 3, 7}), 0, d), 3);
    // Another cache shape is not served.
    KvCache other(kLayers, 64, 2 * kKvDim);
    EXPECT_EQ(voices.restore(prompt_of({1, 2, 3, 7}), 0, other), 0);
}

TEST(VoicePrefixes, TheSameVoiceIsKeptOnceAndTheLeastRecentlyUsedGoesFirst) {
    VoicePrefixes voices(2 * voice_bytes(3));
    const Prompt a = prompt_of({1, 1, 1, 5}), b = prompt_of({2, 2, 2, 5}),
                 c = prompt_of({3, 3, 3, 5});
    voices.remember(a.embeds.data(), 3, kHidden, cache_of(1000, 3));
    voices.remember(a.embeds.data(), 3, kHidden, cache_of(1000, 3));
    voices.remember(a.embeds.data(), 2, kHidden, cache_of(1000, 3));  // inside the kept one
    EXPECT_EQ(voices.count(), 1u);
    voices.remember(b.embeds.data(), 3, kHidden, cache_of(2000, 3));
    KvCache scratch(kLayers, 64, kKvDim);
    EXPECT_EQ(voices.restore(a, 0, scratch), 3);  // a is now the more recent
    voices.remember(c.embeds.data(), 3, kHidden, cache_of(3000, 3));
    EXPECT_EQ(voices.count(), 2u);
    EXPECT_EQ(voices.bytes(), 2 * voice_bytes(3));
    EXPECT_EQ(voices.restore(b, 0, scratch), 0);  // gone
    EXPECT_EQ(voices.restore(a, 0, scratch), 3);
    EXPECT_EQ(scratch.keys(1)[0], 1100.0f);
    EXPECT_EQ(voices.restore(c, 0, scratch), 3);
    EXPECT_EQ(scratch.keys(1)[0], 3100.0f);
    // A voice larger than the whole budget is not kept (and evicts nothing).
    const Prompt long_voice = prompt_of(std::vector<float>(8, 4.0f));
    voices.remember(long_voice.embeds.data(), 7, kHidden, cache_of(4000, 7));
    EXPECT_EQ(voices.count(), 2u);
}

}  // namespace
}  // namespace qwen3tts
