#include "audio/mel_spectrogram.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.hpp"

namespace qwen3tts {

namespace {

constexpr double kPi = 3.14159265358979323846;
// Slaney scale constants (librosa.core.convert, htk=False).
constexpr double kFSp = 200.0 / 3.0;             // Hz per mel below 1 kHz
constexpr double kMinLogHz = 1000.0;             // start of the log region
constexpr double kMinLogMel = kMinLogHz / kFSp;  // = 15
const double kLogStep = std::log(6.4) / 27.0;

constexpr float kMagEps = 1e-9f;   // inside the square root (official mel_spectrogram)
constexpr float kLogClip = 1e-5f;  // dynamic_range_compression_torch clip_val
constexpr int kFrameBlock = 8;     // frames per pass over the twiddle table
constexpr int kVec = 8;            // inner-loop chunk (a multiple of every SIMD width)

// r[k] += a·c[k]; m[k] -= b·s[k] for k < n (n a multiple of kVec). A separate function with
// restrict-qualified parameters so GCC vectorises it at -O2.
void accumulate_pair(float* __restrict r, float* __restrict m, const float* __restrict c,
                     const float* __restrict s, float a, float b, int n) {
    for (int k = 0; k < n; k += kVec)
        for (int j = 0; j < kVec; ++j) {
            r[k + j] += a * c[k + j];
            m[k + j] -= b * s[k + j];
        }
}

[[noreturn]] void bad_param(const std::string& what) {
    throw Error(ErrorCode::invalid_argument, "mel spectrogram: " + what);
}

}  // namespace

double hz_to_mel_slaney(double hz) {
    if (hz >= kMinLogHz) return kMinLogMel + std::log(hz / kMinLogHz) / kLogStep;
    return hz / kFSp;
}

double mel_to_hz_slaney(double mel) {
    if (mel >= kMinLogMel) return kMinLogHz * std::exp(kLogStep * (mel - kMinLogMel));
    return kFSp * mel;
}

// ref: librosa/filters.py mel (htk=False, norm="slaney", dtype=float32). Arithmetic in double
// as numpy does; the triangle is stored to float32 first and the area norm applied after, as in
// `weights[i] = ...; weights *= enorm[:, None]` on a float32 array.
std::vector<float> slaney_mel_filter_bank(int sample_rate, int n_fft, int n_mels, double fmin,
                                          double fmax) {
    if (sample_rate <= 0 || n_fft <= 0 || n_mels <= 0 || !(fmin >= 0.0) || !(fmax > fmin))
        bad_param("invalid filter bank sr=" + std::to_string(sample_rate) +
                  " n_fft=" + std::to_string(n_fft) + " n_mels=" + std::to_string(n_mels) +
                  " fmin=" + std::to_string(fmin) + " fmax=" + std::to_string(fmax));
    const int n_bins = n_fft / 2 + 1;
    // np.fft.rfftfreq(n_fft, d=1/sr): k · (1 / (n_fft · d)).
    const double d = 1.0 / double(sample_rate);
    const double bin_hz = 1.0 / (double(n_fft) * d);
    std::vector<double> fft_hz(static_cast<size_t>(n_bins));
    for (int k = 0; k < n_bins; ++k) fft_hz[size_t(k)] = double(k) * bin_hz;

    // mel_frequencies(n_mels + 2, fmin, fmax): np.linspace on the mel scale (i·step + start,
    // last point exactly stop), back to Hz.
    const int n_pts = n_mels + 2;
    const double mel_lo = hz_to_mel_slaney(fmin), mel_hi = hz_to_mel_slaney(fmax);
    const double step = (mel_hi - mel_lo) / double(n_pts - 1);
    std::vector<double> f(static_cast<size_t>(n_pts));
    for (int i = 0; i < n_pts; ++i)
        f[size_t(i)] = mel_to_hz_slaney(i == n_pts - 1 ? mel_hi : double(i) * step + mel_lo);

    std::vector<float> w(size_t(n_mels) * size_t(n_bins));
    for (int m = 0; m < n_mels; ++m) {
        const double f0 = f[size_t(m)], f1 = f[size_t(m) + 1], f2 = f[size_t(m) + 2];
        const double enorm = 2.0 / (f2 - f0);
        for (int k = 0; k < n_bins; ++k) {
            const double lower = -(f0 - fft_hz[size_t(k)]) / (f1 - f0);
            const double upper = (f2 - fft_hz[size_t(k)]) / (f2 - f1);
            const float tri = float(std::max(0.0, std::min(lower, upper)));
            w[size_t(m) * size_t(n_bins) + size_t(k)] = float(double(tri) * enorm);
        }
    }
    return w;
}

std::vector<float> periodic_hann_window(int n) {
    std::vector<float> w(size_t(std::max(n, 0)));
    for (int i = 0; i < n; ++i)
        w[size_t(i)] = float(0.5 - 0.5 * std::cos(2.0 * kPi * double(i) / double(n)));
    return w;
}

MelSpectrogram::MelSpectrogram(const MelParams& params) : params_(params) {
    const MelParams& p = params_;
    if (p.n_fft < 4 || p.n_fft % 2 != 0)
        bad_param("n_fft must be even and >= 4, got " + std::to_string(p.n_fft));
    if (p.hop <= 0 || p.hop > p.n_fft)
        bad_param("hop must be in [1, n_fft], got " + std::to_string(p.hop));
    if (p.fmax > 0.5 * double(p.sample_rate))
        bad_param("fmax " + std::to_string(p.fmax) + " Hz is above Nyquist for " +
                  std::to_string(p.sample_rate) + " Hz");
    filter_bank_ = slaney_mel_filter_bank(p.sample_rate, p.n_fft, p.n_mels, p.fmin, p.fmax);
    window_ = periodic_hann_window(p.n_fft);

    const int n = p.n_fft, half = n / 2, nb = n_bins();
    n_bins_padded_ = (nb + kVec - 1) / kVec * kVec;
    // Twiddles from the exact phase index (k·i mod n) so large k·i lose no precision.
    cos_table_.assign(size_t(half - 1) * size_t(n_bins_padded_), 0.0f);
    sin_table_.assign(cos_table_.size(), 0.0f);
    for (int i = 1; i < half; ++i)
        for (int k = 0; k < nb; ++k) {
            const double a = 2.0 * kPi * double((int64_t(k) * i) % n) / double(n);
            const size_t at = size_t(i - 1) * size_t(n_bins_padded_) + size_t(k);
            cos_table_[at] = float(std::cos(a));
            sin_table_[at] = float(std::sin(a));
        }

    band_begin_.assign(size_t(p.n_mels), 0);
    band_end_.assign(size_t(p.n_mels), 0);
    for (int m = 0; m < p.n_mels; ++m) {
        const float* row = filter_bank_.data() + size_t(m) * size_t(nb);
        int b = 0, e = nb;
        while (b < nb && row[b] == 0.0f) ++b;
        while (e > b && row[e - 1] == 0.0f) --e;
        band_begin_[size_t(m)] = b;
        band_end_[size_t(m)] = e;
    }
}

size_t MelSpectrogram::min_samples() const {
    const int64_t need_reflect = int64_t(pad()) + 1;
    const int64_t need_window = int64_t(params_.n_fft) - 2 * int64_t(pad());
    return size_t(std::max<int64_t>({need_reflect, need_window, 1}));
}

int64_t MelSpectrogram::n_frames(size_t n_samples) const {
    if (n_samples < min_samples()) return 0;
    return 1 + (int64_t(n_samples) + 2 * int64_t(pad()) - params_.n_fft) / params_.hop;
}

// ref: torch.nn.functional.pad(mode="reflect") + torch.stft(center=False, onesided) +
//      sqrt(re² + im² + 1e-9).
// X[k] = Σ_i x[i]·w[i]·e^{-2πjki/N}. With s = windowed frame and pairs (i, N-i):
//   Re X[k] = s[0] + (-1)^k·s[N/2] + Σ_{i=1}^{N/2-1} (s[i] + s[N-i])·cos(2πki/N)
//   Im X[k] =                       - Σ_{i=1}^{N/2-1} (s[i] - s[N-i])·sin(2πki/N)
std::vector<float> MelSpectrogram::magnitude(const float* samples, size_t n) const {
    if (n < min_samples())
        throw Error(ErrorCode::invalid_argument, "audio of " + std::to_string(n) +
                                                     " samples is too short for the mel "
                                                     "spectrogram: it needs at least " +
                                                     std::to_string(min_samples()) +
                                                     " samples (reflect padding of " +
                                                     std::to_string(pad()) + ")");
    for (size_t i = 0; i < n; ++i)
        if (!std::isfinite(samples[i]))
            throw Error(ErrorCode::invalid_argument, "audio sample " + std::to_string(i) +
                                                         " is not finite (" +
                                                         std::to_string(samples[i]) + ")");

    const int N = params_.n_fft, half = N / 2, nb = n_bins(), kp = n_bins_padded_;
    const int64_t p = pad(), hop = params_.hop;
    const int64_t n_frame = n_frames(n);

    // Reflect-padded signal [n + 2·pad]: padded[j] = x[|j - pad|] mirrored at both ends
    // (edge sample not repeated).
    std::vector<float> padded(n + size_t(2 * p));
    for (int64_t j = 0; j < int64_t(padded.size()); ++j) {
        int64_t src = j - p;
        if (src < 0) src = -src;
        if (src >= int64_t(n)) src = 2 * (int64_t(n) - 1) - src;
        padded[size_t(j)] = samples[src];
    }

    std::vector<float> mag(size_t(n_frame) * size_t(nb));
    std::vector<float> s(static_cast<size_t>(N));
    std::vector<float> u(size_t(kFrameBlock) * size_t(half)), v(u.size());
    std::vector<float> re(size_t(kFrameBlock) * size_t(kp)), im(re.size());
    for (int64_t f0 = 0; f0 < n_frame; f0 += kFrameBlock) {
        const int nf = int(std::min<int64_t>(kFrameBlock, n_frame - f0));
        for (int f = 0; f < nf; ++f) {
            const float* frame = padded.data() + (f0 + f) * hop;
            for (int i = 0; i < N; ++i) s[size_t(i)] = frame[i] * window_[size_t(i)];
            float* uf = u.data() + size_t(f) * size_t(half);
            float* vf = v.data() + size_t(f) * size_t(half);
            for (int i = 1; i < half; ++i) {
                uf[i] = s[size_t(i)] + s[size_t(N - i)];
                vf[i] = s[size_t(i)] - s[size_t(N - i)];
            }
            float* ref = re.data() + size_t(f) * size_t(kp);
            float* imf = im.data() + size_t(f) * size_t(kp);
            for (int k = 0; k < kp; ++k) {
                ref[k] = s[0] + ((k & 1) ? -s[size_t(half)] : s[size_t(half)]);
                imf[k] = 0.0f;
            }
        }
        for (int i = 1; i < half; ++i) {
            const float* c = cos_table_.data() + size_t(i - 1) * size_t(kp);
            const float* sn = sin_table_.data() + size_t(i - 1) * size_t(kp);
            for (int f = 0; f < nf; ++f) {
                float* r = re.data() + size_t(f) * size_t(kp);
                float* m = im.data() + size_t(f) * size_t(kp);
                const float ui = u[size_t(f) * size_t(half) + size_t(i)];
                const float vi = v[size_t(f) * size_t(half) + size_t(i)];
                accumulate_pair(r, m, c, sn, ui, vi, kp);
            }
        }
        for (int f = 0; f < nf; ++f) {
            const float* r = re.data() + size_t(f) * size_t(kp);
            const float* m = im.data() + size_t(f) * size_t(kp);
            float* out = mag.data() + size_t(f0 + f) * size_t(nb);
            for (int k = 0; k < nb; ++k) out[k] = std::sqrt(r[k] * r[k] + m[k] * m[k] + kMagEps);
        }
    }
    return mag;
}

// ref: modeling_qwen3_tts.py mel_spectrogram: torch.matmul(mel_basis, spec), then
//      dynamic_range_compression_torch (log(clamp(x, 1e-5))).
std::vector<float> MelSpectrogram::compute(const float* samples, size_t n) const {
    const std::vector<float> mag = magnitude(samples, n);  // [T, n_bins]
    const int nb = n_bins(), n_mels = params_.n_mels;
    const size_t n_frame = mag.size() / size_t(nb);
    std::vector<float> mel(n_frame * size_t(n_mels));  // [T, n_mels]
    for (size_t t = 0; t < n_frame; ++t) {
        const float* mt = mag.data() + t * size_t(nb);
        for (int m = 0; m < n_mels; ++m) {
            const float* w = filter_bank_.data() + size_t(m) * size_t(nb);
            float acc = 0.0f;
            for (int k = band_begin_[size_t(m)]; k < band_end_[size_t(m)]; ++k) acc += w[k] * mt[k];
            mel[t * size_t(n_mels) + size_t(m)] = std::log(std::max(acc, kLogClip));
        }
    }
    return mel;
}

}  // namespace qwen3tts
