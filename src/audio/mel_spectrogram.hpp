// Log-mel spectrogram of the speaker encoder (x-vector front end), the equivalent of the
// official `mel_spectrogram(y, n_fft=1024, num_mels=128, sampling_rate=24000, hop_size=256,
// win_size=1024, fmin=0, fmax=12000)`:
//   reflect pad (n_fft - hop)/2 on both sides → frames of n_fft every hop (torch.stft,
//   center=False) × periodic Hann → one-sided DFT (n_fft/2 + 1 bins, not normalised) →
//   |X| = sqrt(re² + im² + 1e-9) → librosa Slaney mel filter bank (slaney scale, slaney area
//   norm) → ln(max(mel, 1e-5)).
// ref: qwen_tts/core/models/modeling_qwen3_tts.py, mel_spectrogram / extract_speaker_embedding;
//      librosa/filters.py mel, librosa/core/convert.py hz_to_mel / mel_to_hz / mel_frequencies
//      (spec/talker.md §7.2).
//
// The spectrum is an exact DFT (a twiddle table folded by the n ↔ n_fft-n symmetry, blocked
// over frames so the inner loop vectorises): for one 1024-point frame every 256 samples it costs
// about 0.05 s per 10 s of audio, a small fraction of the speaker encoder itself, and it needs
// no FFT library.
//
// Thread-safety: MelSpectrogram is immutable after construction; compute() may be called from
// several threads at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace qwen3tts {

struct MelParams {
    int sample_rate = 24000;
    int n_fft = 1024;  // also the (periodic Hann) window length; must be even
    int hop = 256;
    int n_mels = 128;
    double fmin = 0.0;
    double fmax = 12000.0;
};

// Slaney mel scale (librosa hz_to_mel / mel_to_hz with htk=False): linear below 1 kHz at
// 200/3 Hz per mel, logarithmic above with ln(6.4)/27 per mel.
double hz_to_mel_slaney(double hz);
double mel_to_hz_slaney(double mel);

// librosa.filters.mel(sr, n_fft, n_mels, fmin, fmax) with htk=False, norm="slaney", float32:
// row-major [n_mels, n_fft/2 + 1]. Triangles in Hz between n_mels + 2 points equally spaced on
// the Slaney scale; triangle m scaled by 2 / (f[m+2] - f[m]).
std::vector<float> slaney_mel_filter_bank(int sample_rate, int n_fft, int n_mels, double fmin,
                                          double fmax);

// torch.hann_window(n) (periodic): 0.5 - 0.5·cos(2πi/n).
std::vector<float> periodic_hann_window(int n);

class MelSpectrogram {
  public:
    // Error(invalid_argument) for parameters the front end cannot honour (odd n_fft, hop > n_fft,
    // fmax above Nyquist, ...).
    explicit MelSpectrogram(const MelParams& params = {});

    const MelParams& params() const { return params_; }
    int n_bins() const { return params_.n_fft / 2 + 1; }
    int pad() const { return (params_.n_fft - params_.hop) / 2; }
    // Frames for n samples: 1 + ⌊(n + 2·pad - n_fft)/hop⌋ (= ⌊n/256⌋ for the defaults); 0 when
    // the input is shorter than min_samples().
    int64_t n_frames(size_t n_samples) const;
    // Shortest valid input: the reflect pad needs n > pad (torch.nn.functional.pad "reflect"),
    // and the padded signal must hold one window (n ≥ hop for the defaults): 385 samples.
    size_t min_samples() const;
    const std::vector<float>& filter_bank() const { return filter_bank_; }  // [n_mels, n_bins]

    // One-sided magnitude sqrt(re² + im² + 1e-9), row-major [n_frames, n_bins].
    // Error(invalid_argument) when the input is shorter than min_samples() or not finite.
    std::vector<float> magnitude(const float* samples, size_t n) const;
    // Log-mel, row-major [n_frames, n_mels] (the official [1, n_mels, T] transposed to
    // [1, T, n_mels], as extract_speaker_embedding feeds the encoder).
    std::vector<float> compute(const float* samples, size_t n) const;
    std::vector<float> compute(const std::vector<float>& samples) const {
        return compute(samples.data(), samples.size());
    }

  private:
    MelParams params_;
    int n_bins_padded_ = 0;           // n_bins rounded up to a multiple of 8 (vector width)
    std::vector<float> window_;       // [n_fft]
    std::vector<float> cos_table_;    // [n_fft/2 - 1][n_bins_padded]: cos(2π·k·n/n_fft), n ≥ 1
    std::vector<float> sin_table_;    // same layout, sin
    std::vector<float> filter_bank_;  // [n_mels, n_bins]
    std::vector<int> band_begin_, band_end_;  // non-zero bin range of each mel filter
};

}  // namespace qwen3tts
