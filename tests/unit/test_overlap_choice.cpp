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

// The ways chosen at `packets` boundaries of one request when a packet of 4 frames takes
// `between_ms` decoded between frames and `beside_ms` decoded beside the generation.
std::vector<bool> run(OverlapChoice& choice, double between_ms, double beside_ms, int packets,
                      clock::time_point& now) {
    choice.new_request();
    std::vector<bool> ways;
    for (int i = 0; i < packets; ++i) {
        const bool beside = choice.at_boundary(now, 4);
        ways.push_back(beside);
        now += std::chrono::microseconds(int64_t((beside ? beside_ms : between_ms) * 1e3));
    }
    return ways;
}

std::vector<bool> run(double between_ms, double beside_ms, int packets) {
    OverlapChoice choice;
    clock::time_point now{std::chrono::seconds(1)};
    return run(choice, between_ms, beside_ms, packets, now);
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
    EXPECT_EQ(pattern(run(100, 70, 40)), "..BBBBBBBBBBBBB...BBBBBBBBBBBBBBBBBB...B");
}

TEST(OverlapChoice, GoesBackWhenBesideIsSlower) {
    // Beside timed at 2-4 (3 not counted), between kept from 5 for 8 packets, timed again at
    // 13-14, beside at 15-17, between kept for 16 packets from 18.
    EXPECT_EQ(pattern(run(70, 100, 40)), "..BBB..........BBB..................BBB.");
}

TEST(OverlapChoice, KeepsTheFasterLongerWhileItStaysFaster) {
    // The stints beside between timing rounds: 8, 16, 32, then 64 at most (plus the round's
    // two packets timed beside).
    const std::string ways = pattern(run(100, 60, 300));
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

// A Session's requests share one choice: the next request goes on where the last one stopped
// (a short request does not start timing again), and the time between requests is not counted.
TEST(OverlapChoice, RequestsGoOnWhereTheLastStopped) {
    OverlapChoice choice;
    clock::time_point now{std::chrono::seconds(1)};
    std::string ways;
    for (int request = 0; request < 4; ++request) {
        ways += pattern(run(choice, 100, 70, 4, now)) + "|";
        now += std::chrono::seconds(10);  // idle: were it counted, beside would look slow
    }
    // Each request's first boundary starts no interval. Request 1 times between (its intervals
    // 1-2) and switches; request 2 times beside (the interval after the switch, in request 1,
    // not counted; its own 1-2) and keeps it; requests 3 and 4 keep it.
    EXPECT_EQ(ways, "..BB|BBBB|BBBB|BBBB|");
}

}  // namespace
}  // namespace qwen3tts
