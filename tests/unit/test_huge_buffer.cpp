// HugeBuffer: sizes, alignment (2 MiB from 2 MiB up, so transparent huge pages can back it),
// every element writable, moves leave the source empty.
#include <gtest/gtest.h>

#include <cstdint>
#include <utility>

#include "core/huge_buffer.hpp"

namespace qwen3tts {
namespace {

TEST(HugeBuffer, SizesAlignmentAndMoves) {
    const HugeBuffer<uint8_t> none;
    EXPECT_EQ(none.size(), 0u);
    EXPECT_EQ(none.data(), nullptr);

    HugeBuffer<uint16_t> small(1000);
    ASSERT_NE(small.data(), nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(small.data()) % 64, 0u);
    for (size_t i = 0; i < small.size(); ++i) small[i] = uint16_t(i);
    EXPECT_EQ(small[999], 999);

    HugeBuffer<uint8_t> big((size_t(5) << 20) + 3);
    ASSERT_NE(big.data(), nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(big.data()) % (size_t(2) << 20), 0u);
    for (size_t i = 0; i < big.size(); ++i) big[i] = uint8_t(i * 7);
    EXPECT_EQ(big[big.size() - 1], uint8_t((big.size() - 1) * 7));

    HugeBuffer<uint8_t> moved = std::move(big);
    EXPECT_EQ(moved.size(), (size_t(5) << 20) + 3);
    EXPECT_EQ(moved[12], uint8_t(84));
    EXPECT_EQ(big.size(), 0u);  // NOLINT(bugprone-use-after-move): the moved-from state
    EXPECT_EQ(big.data(), nullptr);
}

}  // namespace
}  // namespace qwen3tts
