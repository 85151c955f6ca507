// The time stretcher behind the server's `speed` (SoundTouch), checked against independent
// facts: the output lasts input / speed (to a sample), a sine keeps its frequency (the
// pitch is kept; a resampling speed-up would double it at speed 2), chunked streaming equals
// one-shot processing exactly, and speeds outside OpenAI's [0.25, 4] are refused by name.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "audio/time_stretch.hpp"
#include "core/error.hpp"

namespace qwen3tts {
namespace {

constexpr double k_pi = 3.14159265358979323846;
constexpr int kRate = 24000;

std::vector<float> sine(size_t n, double freq, double amp) {
    std::vector<float> x(n);
    for (size_t i = 0; i < n; ++i)
        x[i] = float(amp * std::sin(2 * k_pi * freq * double(i) / kRate));
    return x;
}

// Voice-like: a 120-200 Hz glide with harmonics, and pauses of silence.
std::vector<float> voiced(size_t n) {
    std::vector<float> x(n);
    double phase = 0;
    for (size_t i = 0; i < n; ++i) {
        const double t = double(i) / kRate;
        phase += 2 * k_pi * (160 + 40 * std::sin(2 * k_pi * 1.3 * t)) / kRate;
        const double gate = std::fmod(t, 0.7) < 0.55 ? 1.0 : 0.0;
        x[i] = float(
            gate * (0.4 * std::sin(phase) + 0.2 * std::sin(2 * phase) + 0.1 * std::sin(3 * phase)));
    }
    return x;
}

std::vector<float> stretch_whole(const std::vector<float>& in, double speed) {
    TimeStretch ts(kRate, speed);
    std::vector<float> out;
    ts.process(in.data(), in.size(), out);
    ts.finish(out);
    return out;
}

// Hann-windowed DFT magnitude at freq over x[begin, end).
double magnitude(const std::vector<float>& x, double freq, size_t begin, size_t end) {
    const double n = double(end - begin);
    const std::complex<double> step = std::polar(1.0, -2 * k_pi * freq / kRate);
    std::complex<double> phasor = 1, acc = 0;
    for (size_t i = begin; i < end; ++i, phasor *= step)
        acc += (0.5 - 0.5 * std::cos(2 * k_pi * double(i - begin) / n)) * double(x[i]) * phasor;
    return std::abs(acc);
}

// The strongest frequency in [100, 1000] Hz: a 2 Hz grid, then 0.05 Hz around the best.
double dominant_frequency(const std::vector<float>& x, size_t begin, size_t end) {
    double best = 0, best_mag = -1;
    for (double f = 100; f <= 1000; f += 2) {
        const double m = magnitude(x, f, begin, end);
        if (m > best_mag) best_mag = m, best = f;
    }
    const double center = best;
    for (double f = center - 2; f <= center + 2; f += 0.05) {
        const double m = magnitude(x, f, begin, end);
        if (m > best_mag) best_mag = m, best = f;
    }
    return best;
}

// libSoundTouch, loaded into this process as into the CLI's, turns on FTZ/DAZ when it loads;
// time_stretch.cpp turns them off again before main. With DAZ a subnormal input reads as 0.
TEST(time_stretch, LoadingSoundTouchLeavesSubnormalsAlone) {
    TimeStretch stretch(kRate, 1.5);  // SoundTouch in use here, loaded at start
    volatile float tiny = 1e-40f;     // subnormal
    volatile float one = 1.0f;
    const float product = tiny * one;
    uint32_t got = 0, want = 0;  // as bits: DAZ would also read the comparison's 1e-40 as 0
    std::memcpy(&got, &product, 4);
    const float expected = 1e-40f;
    std::memcpy(&want, &expected, 4);
    EXPECT_EQ(got, want)
        << "a subnormal input read as zero (DAZ) or a subnormal result flushed (FTZ)";
    volatile float a = 1e-30f, b = 1e-10f;  // normal factors, a subnormal product
    EXPECT_GT(a * b, 0.0f) << "a subnormal result flushed (FTZ)";
}

TEST(time_stretch, DurationIsInputOverSpeed) {
    const std::vector<float> in = voiced(3 * kRate);
    for (const double speed : {0.25, 0.5, 0.8, 1.25, 1.5, 2.0, 3.0, 4.0}) {
        const std::vector<float> out = stretch_whole(in, speed);
        const double expected = double(in.size()) / speed;
        // SoundTouch cuts the flushed stream to its own count of expected samples: exact to
        // rounding (the server documents 2 %, for the codec frame granularity of its input).
        EXPECT_NEAR(double(out.size()), expected, 1.0) << "speed " << speed;
    }
}

TEST(time_stretch, KeepsThePitchOfASine) {
    for (const double freq : {220.0, 523.0}) {
        const std::vector<float> in = sine(2 * kRate, freq, 0.5);
        ASSERT_NEAR(dominant_frequency(in, kRate / 2, kRate / 2 + kRate / 2), freq, 0.5);
        for (const double speed : {0.5, 2.0, 4.0}) {
            const std::vector<float> out = stretch_whole(in, speed);
            // Half a second (0.25 s at speed 4) away from both ends.
            const size_t len = speed > 2 ? size_t(kRate / 4) : size_t(kRate / 2);
            ASSERT_GT(out.size(), kRate / 8 + len);
            const size_t begin = (out.size() - len) / 2;
            EXPECT_NEAR(dominant_frequency(out, begin, begin + len), freq, 1.0)
                << "speed " << speed;
        }
    }
}

TEST(time_stretch, ChunkedStreamingEqualsOneShot) {
    const std::vector<float> in = voiced(2 * kRate + 777);
    for (const double speed : {0.5, 1.3, 2.0}) {
        const std::vector<float> whole = stretch_whole(in, speed);
        // One codec frame (1920 samples) at a time, as the server feeds it, and uneven pieces.
        for (const size_t base : {size_t(1920), size_t(0)}) {
            TimeStretch ts(kRate, speed);
            std::vector<float> out;
            size_t at = 0;
            for (size_t k = 0; at < in.size(); ++k) {
                const size_t want = base ? base : 1 + (k * 7919) % 3001;
                const size_t n = std::min(want, in.size() - at);
                ts.process(in.data() + at, n, out);
                at += n;
            }
            ts.finish(out);
            ASSERT_EQ(out.size(), whole.size()) << "speed " << speed << " chunk " << base;
            for (size_t i = 0; i < out.size(); ++i)
                ASSERT_EQ(out[i], whole[i]) << "sample " << i << " speed " << speed;
        }
    }
}

TEST(time_stretch, EmptyInputGivesNoSamples) {
    EXPECT_TRUE(stretch_whole({}, 2.0).empty());
}

TEST(time_stretch, RefusesSpeedsOutsideTheRange) {
    for (const double speed : {0.2, 4.5, 0.0, -1.0, std::numeric_limits<double>::quiet_NaN()}) {
        try {
            TimeStretch ts(kRate, speed);
            ADD_FAILURE() << "speed " << speed << " was accepted";
        } catch (const Error& e) {
            EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
            EXPECT_NE(std::string(e.what()).find("speed must be in [0.25, 4], got "),
                      std::string::npos)
                << e.what();
        }
    }
}

}  // namespace
}  // namespace qwen3tts
