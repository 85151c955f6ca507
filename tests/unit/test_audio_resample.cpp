// Resampling (libsoxr, librosa's soxr_hq recipe) checked against independent facts: a sine keeps
// its frequency and amplitude and matches the analytic sine at the new rate; lengths follow
// librosa's ceil(n · to/from); equal rates are the identity.
#include <gtest/gtest.h>
#include <soxr.h>

#include <cmath>
#include <complex>
#include <vector>

#include "audio/resample.hpp"
#include "core/error.hpp"

namespace qwen3tts {
namespace {

constexpr double k_pi = 3.14159265358979323846;

std::vector<float> sine(int rate, size_t n, double freq, double amp) {
    std::vector<float> x(n);
    for (size_t i = 0; i < n; ++i) x[i] = float(amp * std::sin(2 * k_pi * freq * double(i) / rate));
    return x;
}

// Amplitude of the component at freq over x[begin, end) (one DFT bin, exact for whole periods).
double tone_amplitude(const std::vector<float>& x, int rate, double freq, size_t begin,
                      size_t end) {
    std::complex<double> acc = 0;
    for (size_t i = begin; i < end; ++i)
        acc += double(x[i]) * std::polar(1.0, -2 * k_pi * freq * double(i) / rate);
    return 2.0 * std::abs(acc) / double(end - begin);
}

// Frequency from the positive-going zero crossings in x[begin, end), interpolated.
double zero_crossing_freq(const std::vector<float>& x, int rate, size_t begin, size_t end) {
    double first = -1, last = -1;
    int count = 0;
    for (size_t i = begin + 1; i < end; ++i) {
        if (x[i - 1] < 0 && x[i] >= 0) {
            const double t = double(i - 1) + double(x[i - 1]) / double(x[i - 1] - x[i]);
            if (first < 0) first = t;
            last = t;
            ++count;
        }
    }
    return count > 1 ? double(count - 1) * rate / (last - first) : 0.0;
}

TEST(audio_resample, Downsample44100To24000KeepsTheSine) {
    const size_t n_in = 57330;  // 1.3 s at 44.1 kHz
    const std::vector<float> in = sine(44100, n_in, 440.0, 0.5);
    const std::vector<float> out = resample(in, 44100, 24000);
    // librosa's length is ceil(n · (to/from)) in doubles: 57330 · (24000/44100) =
    // 31200.000000000004 → 31201 (Python gives the same), the extra sample zero padding.
    ASSERT_EQ(out.size(), size_t(31201));
    const size_t begin = 2400, end = 2400 + 24000;  // 1 s = 440 whole periods, away from edges
    EXPECT_NEAR(tone_amplitude(out, 24000, 440.0, begin, end), 0.5, 1e-3);
    EXPECT_NEAR(zero_crossing_freq(out, 24000, begin, end), 440.0, 0.05);
    // soxr compensates its filter delay: the output lines up with the sine sampled at 24 kHz
    // (measured: 2.6e-7 away).
    const std::vector<float> expect = sine(24000, out.size(), 440.0, 0.5);
    double max_err = 0;
    for (size_t i = 1000; i + 1000 < out.size(); ++i)
        max_err = std::max(max_err, std::fabs(double(out[i]) - double(expect[i])));
    EXPECT_LT(max_err, 1e-5);
}

TEST(audio_resample, Upsample16000To24000KeepsTheSine) {
    const std::vector<float> in = sine(16000, 16001, 1000.0, 0.25);
    const std::vector<float> out = resample(in, 16000, 24000);
    ASSERT_EQ(out.size(), size_t(24002));  // ceil(16001 · 1.5) = ceil(24001.5)
    EXPECT_NEAR(tone_amplitude(out, 24000, 1000.0, 1200, 1200 + 12000), 0.25, 1e-3);
    EXPECT_NEAR(zero_crossing_freq(out, 24000, 1200, 1200 + 12000), 1000.0, 0.1);
}

TEST(audio_resample, RemovesContentAboveTheNewNyquist) {
    // 15 kHz at 44.1 kHz has no place below 12 kHz: HQ's stop band leaves almost nothing.
    const std::vector<float> in = sine(44100, 44100, 15000.0, 0.5);
    const std::vector<float> out = resample(in, 44100, 24000);
    double peak = 0;
    for (size_t i = 2000; i + 2000 < out.size(); ++i)
        peak = std::max(peak, std::fabs(double(out[i])));
    EXPECT_LT(peak, 1e-3);
}

TEST(audio_resample, LengthFollowsLibrosaRounding) {
    // Values from Python: math.ceil(n * (to / from)).
    EXPECT_EQ(resample(std::vector<float>(44100, 0.1f), 44100, 24000).size(), size_t(24001));
    EXPECT_EQ(resample(std::vector<float>(48000, 0.1f), 48000, 24000).size(), size_t(24000));
    EXPECT_EQ(resample(std::vector<float>(1, 0.1f), 16000, 24000).size(), size_t(2));
    EXPECT_EQ(resample(std::vector<float>(7, 0.1f), 22050, 24000).size(), size_t(8));
}

TEST(audio_resample, SameRateIsIdentity) {
    const std::vector<float> in = sine(24000, 1000, 440.0, 0.9);
    EXPECT_EQ(resample(in, 24000, 24000), in);
}

TEST(audio_resample, EmptyInputGivesEmptyOutput) {
    EXPECT_TRUE(resample({}, 44100, 24000).empty());
}

TEST(audio_resample, ChunkedFeedMatchesOneShot) {
    // Longer than python-soxr's 48000·in/out input chunk, so the feed loop runs several times;
    // streaming soxr is chunk-size invariant, so it must equal a single-call conversion.
    const std::vector<float> in = sine(48000, 48000 * 5 + 17, 300.0, 0.5);
    const std::vector<float> out = resample(in, 48000, 24000);
    ASSERT_EQ(out.size(), size_t(120009));  // ceil(240017 / 2)
    std::vector<float> one(out.size() + 8);
    size_t done = 0;
    soxr_io_spec_t io = soxr_io_spec(SOXR_FLOAT32_I, SOXR_FLOAT32_I);
    soxr_quality_spec_t q = soxr_quality_spec(SOXR_HQ, 0);
    ASSERT_EQ(soxr_oneshot(48000, 24000, 1, in.data(), in.size(), nullptr, one.data(), one.size(),
                           &done, &io, &q, nullptr),
              nullptr);
    ASSERT_GE(done, out.size() - 1);
    for (size_t i = 0; i < std::min(done, out.size()); ++i) ASSERT_EQ(out[i], one[i]) << i;
}

TEST(audio_resample, StreamingInCodecFramesEqualsOneShot) {
    for (auto rates : {std::pair<int, int>{24000, 48000}, {24000, 44100}, {44100, 24000}}) {
        const std::vector<float> in = sine(rates.first, 31200, 440.0, 0.5);
        StreamResampler rs(rates.first, rates.second);
        std::vector<float> streamed;
        size_t after_first = 0;
        for (size_t at = 0; at < in.size(); at += 1920) {
            rs.process(in.data() + at, std::min<size_t>(1920, in.size() - at), streamed);
            if (at == 0) after_first = streamed.size();
        }
        rs.flush(streamed);
        EXPECT_GT(after_first, 0u) << "output starts with the first chunk";
        const std::vector<float> one = resample(in, rates.first, rates.second);
        // resample() pads/cuts to librosa's length; the stream gives what soxr produced.
        EXPECT_LE(std::abs(double(streamed.size()) - double(one.size())), 1.0);
        for (size_t i = 0; i < std::min(streamed.size(), one.size()); ++i)
            ASSERT_EQ(streamed[i], one[i]) << rates.first << "->" << rates.second << " at " << i;
        EXPECT_THROW(rs.process(in.data(), 10, streamed), Error);
    }
}

TEST(audio_resample, StreamingSameRatePassesThrough) {
    StreamResampler rs(24000, 24000);
    const std::vector<float> in = sine(24000, 100, 440.0, 0.5);
    std::vector<float> out;
    rs.process(in.data(), in.size(), out);
    rs.flush(out);
    EXPECT_EQ(out, in);
}

TEST(audio_resample, RejectsNonPositiveRates) {
    for (auto rates : {std::pair<int, int>{0, 24000}, {24000, 0}, {-1, 16000}}) {
        try {
            resample({0.0f, 0.1f}, rates.first, rates.second);
            FAIL() << "no error";
        } catch (const Error& e) {
            EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
            EXPECT_NE(std::string(e.what()).find(std::to_string(rates.first)), std::string::npos);
        }
    }
    EXPECT_THROW(StreamResampler(0, 24000), Error);
}

}  // namespace
}  // namespace qwen3tts
