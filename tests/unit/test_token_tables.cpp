// The tokenizer's hand-written tables (TokenVocab, BpeMerges) against std::map as reference,
// through their growth from empty (no reserve hint) and from a hint that is too small.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "text/bpe.hpp"
#include "text/token_vocab.hpp"

namespace qwen3tts {
namespace {

std::string random_token(std::mt19937* rng) {
    std::uniform_int_distribution<int> length(0, 12);
    std::uniform_int_distribution<int> byte(0, 255);
    std::string s(static_cast<size_t>(length(*rng)), '\0');
    for (char& c : s) c = static_cast<char>(byte(*rng));
    return s;
}

void check_vocab_against_map(size_t reserve_tokens) {
    std::mt19937 rng(11);
    TokenVocab vocab;
    if (reserve_tokens > 0) vocab.reserve(reserve_tokens, reserve_tokens * 4);
    std::map<std::string, int32_t> reference;
    for (int32_t next_id = 0; reference.size() < 20000;) {
        const std::string token = random_token(&rng);
        const bool is_new = reference.emplace(token, next_id).second;
        ASSERT_EQ(vocab.add(token, next_id), is_new) << "token of " << token.size() << " bytes";
        if (is_new) ++next_id;
    }
    ASSERT_EQ(vocab.size(), reference.size());
    vocab.index_ids();
    for (const auto& [token, id] : reference) {
        ASSERT_EQ(vocab.find(token), id);
        ASSERT_EQ(vocab.token(id), token);
    }
    for (int i = 0; i < 2000; ++i) {
        const std::string token = random_token(&rng) + "#absent";
        ASSERT_EQ(vocab.find(token), reference.count(token) ? reference[token] : -1);
    }
    EXPECT_EQ(vocab.token(-1), "");
    EXPECT_EQ(vocab.token(static_cast<int32_t>(reference.size())), "");
}

TEST(TokenVocab, FindsEveryTokenAndItsIdWhenGrownFromEmpty) {
    check_vocab_against_map(0);
}

TEST(TokenVocab, FindsEveryTokenAndItsIdWhenTheHintIsTooSmall) {
    check_vocab_against_map(100);
}

TEST(TokenVocab, AnEmptyVocabularyFindsNothing) {
    TokenVocab vocab;
    EXPECT_EQ(vocab.find(""), -1);
    EXPECT_EQ(vocab.find("a"), -1);
    vocab.index_ids();
    EXPECT_EQ(vocab.token(0), "");
}

// Merges by rank: with all pairs (i, i+1) -> 100000+i of ranks i, the pair of lowest rank in
// a sequence merges first; a repeated pair keeps its first rank and result.
TEST(BpeMerges, EveryMergeIsFoundWithItsFirstRankAfterGrowing) {
    BpeMerges merges;
    constexpr int32_t kPairs = 30000;
    for (int32_t i = 0; i < kPairs; ++i) ASSERT_TRUE(merges.add(i, i + 1, 100000 + i));
    EXPECT_FALSE(merges.add(5, 6, 7));  // repeated: ignored
    EXPECT_EQ(merges.size(), size_t(kPairs));
    BpeMerges::Scratch scratch;
    for (int32_t i = 0; i < kPairs; i += 997) {
        std::vector<int32_t> ids = {i, i + 1};
        merges.apply(&ids, &scratch);
        ASSERT_EQ(ids, std::vector<int32_t>{100000 + i});
        // (i, i+1, i+2): (i, i+1) has the lower rank, so it merges; the result has no merge.
        ids = {i, i + 1, i + 2};
        merges.apply(&ids, &scratch);
        ASSERT_EQ(ids, (std::vector<int32_t>{100000 + i, i + 2}));
    }
    std::vector<int32_t> repeated = {5, 6};
    merges.apply(&repeated, &scratch);
    EXPECT_EQ(repeated, std::vector<int32_t>{100005});
    std::vector<int32_t> unknown = {kPairs + 5, kPairs + 6};
    merges.apply(&unknown, &scratch);
    EXPECT_EQ(unknown, (std::vector<int32_t>{kPairs + 5, kPairs + 6}));
    std::vector<int32_t> reversed = {6, 5};
    merges.apply(&reversed, &scratch);
    EXPECT_EQ(reversed, (std::vector<int32_t>{6, 5}));
}

}  // namespace
}  // namespace qwen3tts
