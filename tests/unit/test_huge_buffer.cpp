// HugeBuffer: sizes, alignment (small buffers packed into 2 MiB-aligned slabs, large ones
// aligned to 2 MiB, so transparent huge pages can back both), the huge-page advice on the
// memory of a small buffer, a slab given back with its last buffer, every element writable,
// moves leave the source empty; populate_for_write faults in exactly the whole pages of its
// range.
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

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

    HugeBuffer<uint8_t> big((size_t(9) << 20) + 3);
    ASSERT_NE(big.data(), nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(big.data()) % (size_t(2) << 20), 0u);
    for (size_t i = 0; i < big.size(); ++i) big[i] = uint8_t(i * 7);
    EXPECT_EQ(big[big.size() - 1], uint8_t((big.size() - 1) * 7));

    HugeBuffer<uint8_t> moved = std::move(big);
    EXPECT_EQ(moved.size(), (size_t(9) << 20) + 3);
    EXPECT_EQ(moved[12], uint8_t(84));
    EXPECT_EQ(big.size(), 0u);  // NOLINT(bugprone-use-after-move): the moved-from state
    EXPECT_EQ(big.data(), nullptr);
}

// The VmFlags line of the mapping that holds p, from /proc/self/smaps ("" if none).
std::string vm_flags_of(const void* p) {
    std::ifstream smaps("/proc/self/smaps");
    const auto at = reinterpret_cast<uintptr_t>(p);
    bool inside = false;
    for (std::string line; std::getline(smaps, line);) {
        const std::string first = line.substr(0, line.find(' '));
        unsigned long begin = 0, end = 0;
        if (first.find(':') == std::string::npos &&
            std::sscanf(first.c_str(), "%lx-%lx", &begin, &end) == 2)
            inside = at >= begin && at < end;  // a mapping's header line
        else if (inside && first == "VmFlags:")
            return line;
    }
    return "";
}

TEST(HugeBuffer, SmallBuffersShareSlabsAdvisedForHugePagesAndGiveThemBack) {
    if (!QWEN3TTS_HUGE_BUFFER_SLABS) GTEST_SKIP() << "no slabs under AddressSanitizer";
    void* first = nullptr;
    {
        HugeBuffer<uint8_t> a(size_t(1) << 20), b(size_t(3) << 20), c(4096);
        first = a.data();
        // Packed one after the other, 64-byte aligned.
        EXPECT_EQ(b.data(), a.data() + (size_t(1) << 20));
        EXPECT_EQ(c.data(), b.data() + (size_t(3) << 20));
        for (const uint8_t* p : {a.data(), b.data(), c.data()}) {
            EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
            const std::string flags = vm_flags_of(p);
            ASSERT_FALSE(flags.empty()) << "no mapping holds the buffer";
            EXPECT_NE(flags.find(" hg"), std::string::npos) << flags;
        }
    }
    // The slab went with its last buffer: its memory is no longer mapped.
    unsigned char resident = 0;
    const auto page =
        reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(first) & ~uintptr_t(4095));
    EXPECT_EQ(mincore(page, 4096, &resident), -1);
    EXPECT_EQ(errno, ENOMEM);
}

TEST(HugeBuffer, PopulateForWriteFaultsInTheWholePagesOfItsRange) {
    const size_t page = 4096, pages = 16;
    void* map =
        mmap(nullptr, pages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(map, MAP_FAILED);
    auto* p = static_cast<uint8_t*>(map);
    // From inside page 1 to inside page 9: pages 2 to 8 are whole.
    if (!detail::populate_for_write(p + page + 100, 8 * page))
        GTEST_SKIP() << "this kernel has no MADV_POPULATE_WRITE";
    std::vector<unsigned char> resident(pages);
    ASSERT_EQ(mincore(map, pages * page, resident.data()), 0);
    for (size_t i = 0; i < pages; ++i)
        EXPECT_EQ(resident[i] & 1, i >= 2 && i <= 8 ? 1 : 0) << "page " << i;
    EXPECT_FALSE(detail::populate_for_write(p + 10, 100)) << "no whole page";
    munmap(map, pages * page);
}

}  // namespace
}  // namespace qwen3tts
