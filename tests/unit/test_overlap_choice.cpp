// OverlapChoice (runtime/codec_overlap.hpp): which way a request's packets are decoded, from
// the wall time per frame of each way, on a simulated clock.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "runtime/codec_overlap.hpp"

namespace qwen3tts {
namespace {

using clock = std::chrono::steady_clock;

// The ways chosen at `packets` boundaries when a packet of 4 frames takes `between_ms` decoded
// between frames and `beside_ms` decoded beside the generation.
std::vector<bool> run(CodecOverlap mode, double between_ms, double beside_ms, int packets) {
    OverlapChoice choice(mode);
    clock::time_point now{std::chrono::seconds(1)};
    std::vector<bool> ways;
    for (int i = 0; i < packets; ++i) {
        const bool beside = choice.at_boundary(now, 4);
        ways.push_back(beside);
        now += std::chrono::microseconds(int64_t((beside ? beside_ms : between_ms) * 1e3));
    }
    return ways;
}

TEST(OverlapChoice, FixedModesAreKept) {
    for (bool way : run(CodecOverlap::off, 100, 50, 20)) EXPECT_FALSE(way);
    for (bool way : run(CodecOverlap::on, 50, 100, 20)) EXPECT_TRUE(way);
}

// The ways as a string: '.' between frames, 'B' beside.
std::string pattern(const std::vector<bool>& ways) {
    std::string s;
    for (bool way : ways) s += way ? 'B' : '.';
    return s;
}

TEST(OverlapChoice, TimesBothWaysThenKeepsTheFaster) {
    // Between frames at boundaries 0-2 (intervals 1 and 2 timed), beside from 2 (the interval
    // after the switch not counted, 4 and 5 timed), beside kept for 8 packets (6-13); then
    // both timed again, the current way first (14, 15), between (15-17, 16 not counted), and
    // beside kept again, now for 16 packets.
    EXPECT_EQ(pattern(run(CodecOverlap::adaptive, 100, 70, 40)),
              "..BBBBBBBBBBBBB...BBBBBBBBBBBBBBBBBB...B");
}

TEST(OverlapChoice, GoesBackWhenBesideIsSlower) {
    // Beside timed at 2-4 (3 not counted), between kept from 5 for 8 packets, timed again at
    // 13-14, beside at 15-17, between kept for 16 packets from 18.
    EXPECT_EQ(pattern(run(CodecOverlap::adaptive, 70, 100, 40)),
              "..BBB..........BBB..................BBB.");
}

TEST(OverlapChoice, KeepsTheFasterLongerWhileItStaysFaster) {
    // The stints beside between timing rounds: 8, 16, 32, then 64 at most (plus the round's
    // two packets timed beside).
    const std::string ways = pattern(run(CodecOverlap::adaptive, 100, 60, 300));
    std::vector<size_t> runs;
    for (size_t i = 0; i < ways.size();) {
        const size_t end = std::min(ways.find('.', i), ways.size());
        if (end > i) runs.push_back(end - i);
        i = end + 1;
    }
    ASSERT_GE(runs.size(), 5u);
    EXPECT_EQ(runs[1], 16u + 2);
    EXPECT_EQ(runs[2], 32u + 2);
    EXPECT_EQ(runs[3], 64u + 2);
    EXPECT_EQ(runs[4], 64u + 2);
}

}  // namespace
}  // namespace qwen3tts
