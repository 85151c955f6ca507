// The speaker encoder's log-mel front end against independent facts: the Slaney mel scale, the
// filter bank's triangles and area normalisation, the periodic Hann window, the DFT of pure
// sines and of reflect-padded frames (against a naive double-precision DFT written here), frame
// counts, and the input checks. Plus the voice-clone reference-audio policy.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <limits>
#include <string>
#include <vector>

#include "audio/mel_spectrogram.hpp"
#include "core/error.hpp"
#include "model/speaker_encoder.hpp"

namespace qwen3tts {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr int kNfft = 1024, kHop = 256, kBins = 513, kMels = 128;
constexpr double kBinHz = 24000.0 / kNfft;  // 23.4375 Hz

std::vector<float> sine(size_t n, double hz, double amp) {
    std::vector<float> x(n);
    for (size_t i = 0; i < n; ++i) x[i] = float(amp * std::sin(2.0 * kPi * hz * double(i) / 24000));
    return x;
}

// Expects an Error(invalid_argument) whose message contains `needle`.
template <class F>
void expect_invalid(F&& f, const std::string& needle) {
    try {
        f();
        ADD_FAILURE() << "no error; expected one mentioning \"" << needle << "\"";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::invalid_argument) << e.what();
        EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
}

TEST(MelScale, SlaneyBreakpoints) {
    EXPECT_DOUBLE_EQ(hz_to_mel_slaney(0.0), 0.0);
    EXPECT_NEAR(hz_to_mel_slaney(200.0 / 3.0), 1.0, 1e-12);  // linear part: 200/3 Hz per mel
    EXPECT_NEAR(hz_to_mel_slaney(500.0), 7.5, 1e-12);
    EXPECT_NEAR(hz_to_mel_slaney(1000.0), 15.0, 1e-12);  // start of the log part
    EXPECT_NEAR(hz_to_mel_slaney(6400.0), 42.0, 1e-12);  // ×6.4 in frequency = 27 mels
    EXPECT_NEAR(hz_to_mel_slaney(6400.0 * 6.4), 69.0, 1e-9);
    for (double hz : {10.0, 999.0, 1000.0, 2345.6, 12000.0})
        EXPECT_NEAR(mel_to_hz_slaney(hz_to_mel_slaney(hz)), hz, 1e-9 * hz);
}

// The filter edges: 130 points equally spaced in Slaney mels over [0, 12 kHz].
std::vector<double> mel_points_hz() {
    const double top = 15.0 + 27.0 * std::log(12000.0 / 1000.0) / std::log(6.4);
    std::vector<double> f(kMels + 2);
    for (int i = 0; i < kMels + 2; ++i) {
        const double m = top * i / (kMels + 1);
        f[size_t(i)] = m < 15.0 ? m * 200.0 / 3.0 : 1000.0 * std::pow(6.4, (m - 15.0) / 27.0);
    }
    return f;
}

TEST(MelFilterBank, ShapeAndFirstFilter) {
    const auto w = slaney_mel_filter_bank(24000, kNfft, kMels, 0.0, 12000.0);
    ASSERT_EQ(w.size(), size_t(kMels) * kBins);
    const auto f = mel_points_hz();
    // Filter 0 spans [0, f2] with its peak at f1 (both below one bin apart from bin 1 and 2):
    // value(bin k) = 2/(f2 - 0) · min(k·Δ/f1, (f2 - k·Δ)/(f2 - f1)).
    const double enorm = 2.0 / f[2];
    EXPECT_EQ(w[0], 0.0f);
    EXPECT_NEAR(w[1], enorm * kBinHz / f[1], 1e-7);
    EXPECT_NEAR(w[2], enorm * (f[2] - 2 * kBinHz) / (f[2] - f[1]), 1e-7);
    for (int k = 3; k < kBins; ++k) EXPECT_EQ(w[size_t(k)], 0.0f) << k;
}

TEST(MelFilterBank, TrianglesPeakAtSlaneyCentresWithUnitArea) {
    const auto w = slaney_mel_filter_bank(24000, kNfft, kMels, 0.0, 12000.0);
    const auto f = mel_points_hz();
    for (int m = 0; m < kMels; ++m) {
        const float* row = w.data() + size_t(m) * kBins;
        const double lo = f[size_t(m)], mid = f[size_t(m) + 1], hi = f[size_t(m) + 2];
        int arg = 0;
        double area = 0.0;
        for (int k = 0; k < kBins; ++k) {
            const double hz = k * kBinHz;
            if (hz <= lo || hz >= hi) {
                EXPECT_EQ(row[k], 0.0f) << "filter " << m << " bin " << k;
            }
            if (row[k] > row[arg]) arg = k;
            area += row[k] * kBinHz;
        }
        // The largest weight sits on a bin next to the centre frequency, and no weight exceeds
        // the triangle's apex 2/(hi - lo).
        EXPECT_LE(std::fabs(arg * kBinHz - mid), kBinHz) << "filter " << m;
        EXPECT_LE(row[arg], 2.0 / (hi - lo) * (1 + 1e-6)) << "filter " << m;
        // Slaney area normalisation: each triangle (height 2/(hi-lo), base hi-lo) has area 1;
        // the bin sum approximates it once the triangle spans many bins.
        if (hi - lo > 20 * kBinHz) {
            EXPECT_NEAR(area, 1.0, 0.01) << "filter " << m;
        }
    }
}

TEST(MelWindow, PeriodicHann) {
    const auto w = periodic_hann_window(kNfft);
    ASSERT_EQ(w.size(), size_t(kNfft));
    EXPECT_EQ(w[0], 0.0f);
    EXPECT_FLOAT_EQ(w[256], 0.5f);
    EXPECT_FLOAT_EQ(w[512], 1.0f);
    for (int i = 1; i < kNfft; ++i) EXPECT_FLOAT_EQ(w[size_t(i)], w[size_t(kNfft - i)]) << i;
}

TEST(MelSpectrogram, FrameCountIsLengthOverHop) {
    const MelSpectrogram mel;
    EXPECT_EQ(mel.pad(), 384);
    EXPECT_EQ(mel.min_samples(), 385u);
    EXPECT_EQ(mel.n_frames(384), 0);
    for (size_t n : {385u, 511u, 512u, 513u, 1000u, 24000u, 82523u})
        EXPECT_EQ(mel.n_frames(n), int64_t(n / kHop)) << n;
    const auto x = sine(1000, 440.0, 0.5);
    EXPECT_EQ(mel.compute(x).size(), size_t(1000 / kHop) * kMels);
    EXPECT_EQ(mel.magnitude(x.data(), x.size()).size(), size_t(1000 / kHop) * kBins);
}

TEST(MelSpectrogram, SineOnABinPeaksThere) {
    // 100 · 23.4375 Hz: a whole number of periods per window, so with the Hann window the
    // spectrum is A·N/4 at the bin, A·N/8 at its neighbours and ~0 elsewhere.
    const MelSpectrogram mel;
    const double amp = 0.5;
    const auto x = sine(24000, 100 * kBinHz, amp);
    const auto mag = mel.magnitude(x.data(), x.size());
    const size_t n_frame = mag.size() / kBins;
    for (size_t t = 2; t + 2 < n_frame; ++t) {  // frames away from the reflected edges
        const float* row = mag.data() + t * kBins;
        EXPECT_NEAR(row[100], amp * kNfft / 4, 1e-3) << t;
        EXPECT_NEAR(row[99], amp * kNfft / 8, 1e-3) << t;
        EXPECT_NEAR(row[101], amp * kNfft / 8, 1e-3) << t;
        for (int k = 0; k < kBins; ++k)
            if (k < 99 || k > 101) {
                EXPECT_LT(row[k], 1e-3) << "frame " << t << " bin " << k;
            }
    }
}

TEST(MelSpectrogram, SineOffBinPeaksAtNearestBin) {
    const MelSpectrogram mel;
    const auto x = sine(24000, 1000.0, 0.3);  // bin 42.67
    const auto mag = mel.magnitude(x.data(), x.size());
    for (size_t t = 2; t + 2 < mag.size() / kBins; ++t) {
        const float* row = mag.data() + t * kBins;
        int arg = 0;
        for (int k = 1; k < kBins; ++k)
            if (row[k] > row[arg]) arg = k;
        EXPECT_EQ(arg, 43) << t;
    }
}

TEST(MelSpectrogram, MatchesNaiveDftOfReflectPaddedFrames) {
    // Arbitrary signal; frames 0 and last read the reflect padding.
    const size_t n = 3000;
    std::vector<float> x(n);
    for (size_t i = 0; i < n; ++i)
        x[i] =
            float(0.4 * std::sin(0.013 * double(i * i % 7919)) + 0.1 * std::cos(0.2 * double(i)));
    const MelSpectrogram mel;
    const auto mag = mel.magnitude(x.data(), n);
    const auto w = periodic_hann_window(kNfft);
    const int64_t n_frame = mel.n_frames(n);
    const auto reflect = [&](int64_t j) {  // torch "reflect": edge sample not repeated
        if (j < 0) j = -j;
        if (j >= int64_t(n)) j = 2 * (int64_t(n) - 1) - j;
        return double(x[size_t(j)]);
    };
    for (int64_t t : {int64_t(0), int64_t(1), n_frame / 2, n_frame - 1}) {
        for (int k : {0, 1, 7, 100, 255, 256, 511, 512}) {
            std::complex<double> acc = 0;
            for (int i = 0; i < kNfft; ++i)
                acc += reflect(t * kHop + i - 384) * double(w[size_t(i)]) *
                       std::polar(1.0, -2.0 * kPi * double(k) * i / kNfft);
            const double expect = std::sqrt(std::norm(acc) + 1e-9);
            EXPECT_NEAR(mag[size_t(t) * kBins + size_t(k)], expect, 2e-5 * (1.0 + expect))
                << "frame " << t << " bin " << k;
        }
    }
}

TEST(MelSpectrogram, SilenceIsTheLogFloor) {
    // sqrt(1e-9) per bin times at most ~0.05 of filter weight stays below the 1e-5 clamp.
    const MelSpectrogram mel;
    const auto m = mel.compute(std::vector<float>(24000, 0.0f));
    ASSERT_EQ(m.size(), size_t(24000 / kHop) * kMels);
    for (float v : m) ASSERT_FLOAT_EQ(v, std::log(1e-5f));
}

TEST(MelSpectrogram, InputChecks) {
    const MelSpectrogram mel;
    expect_invalid([&] { mel.compute(std::vector<float>(384, 0.1f)); }, "384 samples");
    expect_invalid([&] { mel.compute(std::vector<float>()); }, "at least 385");
    auto x = sine(2000, 440.0, 0.5);
    x[1234] = std::numeric_limits<float>::quiet_NaN();
    expect_invalid([&] { mel.compute(x); }, "1234");
    x[1234] = std::numeric_limits<float>::infinity();
    expect_invalid([&] { mel.compute(x); }, "not finite");
    expect_invalid(
        [] {
            MelSpectrogram bad(MelParams{24000, 1023, 256, 128, 0.0, 12000.0});
        },
        "n_fft");
    expect_invalid(
        [] {
            MelSpectrogram bad(MelParams{16000, 1024, 256, 128, 0.0, 12000.0});
        },
        "Nyquist");
}

Audio make_audio(size_t n, int rate, float amp) {
    Audio a;
    a.sample_rate = rate;
    a.samples.assign(n, 0.0f);
    for (size_t i = 0; i < n; ++i) a.samples[i] = amp * float(std::sin(0.05 * double(i)));
    return a;
}

TEST(ReferenceAudio, AcceptsOrdinaryClip) {
    EXPECT_NO_THROW(check_reference_audio(make_audio(24000 * 3, 24000, 0.3f)));
    EXPECT_NO_THROW(check_reference_audio(make_audio(16000 * 2, 16000, 0.3f), 60.0, "a.wav"));
}

TEST(ReferenceAudio, RejectsWithReasonAndName) {
    expect_invalid([] { check_reference_audio(make_audio(0, 24000, 0.3f), 60.0, "ref.wav"); },
                   "ref.wav is empty");
    expect_invalid([] { check_reference_audio(make_audio(12000, 24000, 0.3f), 60.0, "ref.wav"); },
                   "ref.wav is 0.50 s long");
    expect_invalid([] { check_reference_audio(make_audio(24000 * 61, 24000, 0.3f)); },
                   "61.00 s long; the limit is 60.00 s");
    expect_invalid([] { check_reference_audio(make_audio(24000 * 11, 24000, 0.3f), 10.0); },
                   "the limit is 10.00 s");
    expect_invalid([] { check_reference_audio(make_audio(48000, 24000, 5e-5f), 60.0, "q.flac"); },
                   "q.flac (2.00 s) is silent");
    expect_invalid([] { check_reference_audio(make_audio(48000, 0, 0.3f)); }, "sample rate");
    auto nan = make_audio(48000, 24000, 0.3f);
    nan.samples[77] = std::numeric_limits<float>::quiet_NaN();
    expect_invalid([&] { check_reference_audio(nan); }, "non-finite sample at index 77");
}

}  // namespace
}  // namespace qwen3tts
