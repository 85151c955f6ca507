#include "model/speaker_encoder.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "core/error.hpp"

namespace qwen3tts {

namespace {

const std::string kPrefix = "speaker_encoder";
constexpr int kSampleRate = 24000;  // extract_speaker_embedding asserts sr == 24000

[[noreturn]] void bad_config(const std::string& what) {
    throw Error(ErrorCode::model, "speaker_encoder_config: " + what);
}

std::string list(const std::vector<int>& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
    return s + "]";
}

// The fixed front-end parameters of extract_speaker_embedding (only the mel count comes from
// the config).
MelParams mel_params(const SpeakerEncoderConfig& c) {
    MelParams p;
    p.sample_rate = kSampleRate;
    p.n_fft = 1024;
    p.hop = 256;
    p.n_mels = c.mel_dim;
    p.fmin = 0.0;
    p.fmax = 12000.0;
    return p;
}

// Checks what Qwen3TTSSpeakerEncoder.__init__/forward need to build and run.
const SpeakerEncoderConfig& validated(const SpeakerEncoderConfig& c) {
    if (!c.present) bad_config("absent (only Base checkpoints have a speaker encoder)");
    if (c.sample_rate != kSampleRate)
        bad_config("sample_rate " + std::to_string(c.sample_rate) + " is not 24000");
    if (c.mel_dim <= 0) bad_config("mel_dim " + std::to_string(c.mel_dim) + " is not positive");
    if (c.enc_dim <= 0) bad_config("enc_dim " + std::to_string(c.enc_dim) + " is not positive");
    const size_t n = c.enc_channels.size();
    if (n < 3 || c.enc_kernel_sizes.size() != n || c.enc_dilations.size() != n)
        bad_config("enc_channels " + list(c.enc_channels) + ", enc_kernel_sizes " +
                   list(c.enc_kernel_sizes) + " and enc_dilations " + list(c.enc_dilations) +
                   " must have the same length >= 3");
    for (size_t i = 0; i < n; ++i)
        if (c.enc_channels[i] <= 0 || c.enc_kernel_sizes[i] <= 0 || c.enc_dilations[i] <= 0)
            bad_config("enc_channels/enc_kernel_sizes/enc_dilations entry " + std::to_string(i) +
                       " is not positive");
    int cat = 0;
    for (size_t i = 1; i + 1 < n; ++i) {
        if (c.enc_channels[i] != c.enc_channels[i - 1])
            bad_config("enc_channels " + list(c.enc_channels) +
                       ": SE-Res2Net blocks need equal input and output channels (residual)");
        if (c.enc_res2net_scale < 2 || c.enc_channels[i] % c.enc_res2net_scale != 0)
            bad_config("enc_channels[" + std::to_string(i) +
                       "] = " + std::to_string(c.enc_channels[i]) +
                       " does not split into enc_res2net_scale " +
                       std::to_string(c.enc_res2net_scale) + " chunks");
        cat += c.enc_channels[i];
    }
    if (cat != c.enc_channels.back())
        bad_config("enc_channels " + list(c.enc_channels) +
                   ": the last entry must equal the sum "
                   "of the SE-Res2Net block channels (" +
                   std::to_string(cat) + ")");
    if (c.enc_attention_channels <= 0 || c.enc_se_channels <= 0)
        bad_config("enc_attention_channels and enc_se_channels must be positive");
    return c;
}

}  // namespace

SpeakerEncoder::SpeakerEncoder(const WeightMap& weights, const SpeakerEncoderConfig& config)
    : mel_(mel_params(validated(config))), enc_dim_(config.enc_dim) {
    const auto& ch = config.enc_channels;
    const auto& k = config.enc_kernel_sizes;
    const auto& d = config.enc_dilations;
    const size_t n = ch.size();

    block0_.load(weights, kPrefix + ".blocks.0.conv", config.mel_dim, ch[0], k[0], d[0], true);
    min_frames_ = block0_.min_rows();
    blocks_.resize(n - 2);
    for (size_t i = 1; i + 1 < n; ++i) {
        SeRes2NetBlock& b = blocks_[i - 1];
        b.load(weights, kPrefix + ".blocks." + std::to_string(i), ch[i], config.enc_res2net_scale,
               config.enc_se_channels, k[i], d[i]);
        min_frames_ = std::max(min_frames_, b.min_rows());
    }
    mfa_.load(weights, kPrefix + ".mfa.conv", ch.back(), ch.back(), k.back(), d.back(), true);
    min_frames_ = std::max(min_frames_, mfa_.min_rows());
    asp_.load(weights, kPrefix + ".asp", ch.back(), config.enc_attention_channels);
    fc_.load(weights, kPrefix + ".fc", 2 * ch.back(), enc_dim_, 1, 1, false);
}

size_t SpeakerEncoder::min_samples() const {
    // n_frames(n) = 1 + ⌊(n + 2·pad - n_fft)/hop⌋ ≥ min_frames.
    const MelParams& p = mel_.params();
    const int64_t for_frames = (min_frames_ - 1) * p.hop + p.n_fft - 2 * int64_t(mel_.pad());
    return std::max(mel_.min_samples(), size_t(std::max<int64_t>(for_frames, 1)));
}

double SpeakerEncoder::flops(int64_t n_frames) const {
    double f = block0_.flops(n_frames) + mfa_.flops(n_frames) + asp_.flops(n_frames);
    for (const auto& b : blocks_) f += b.flops(n_frames);
    return f + fc_.flops(1);
}

std::vector<float> SpeakerEncoder::log_mel(const std::vector<float>& audio_24k) const {
    if (audio_24k.size() < min_samples()) {
        char dur[32];
        std::snprintf(dur, sizeof dur, "%.1f ms", 1e3 * double(audio_24k.size()) / kSampleRate);
        throw Error(ErrorCode::invalid_argument,
                    "speaker encoder: audio of " + std::to_string(audio_24k.size()) + " samples (" +
                        dur + " at 24 kHz) is too short: it needs at least " +
                        std::to_string(min_samples()) + " samples (" + std::to_string(min_frames_) +
                        " mel frames for the reflect padding)");
    }
    return mel_.compute(audio_24k);  // checks finiteness
}

std::vector<float> SpeakerEncoder::embed(const std::vector<float>& audio_24k,
                                         const backend::ExecContext& ctx) const {
    const std::vector<float> mel = log_mel(audio_24k);  // [T, mel_dim]
    const int64_t n_frames = int64_t(mel.size()) / mel_.params().n_mels;
    return embed_mel(mel.data(), n_frames, ctx);
}

std::vector<float> SpeakerEncoder::embed(const Audio& audio,
                                         const backend::ExecContext& ctx) const {
    if (audio.sample_rate != kSampleRate)
        throw Error(ErrorCode::invalid_argument, "speaker encoder: audio is at " +
                                                     std::to_string(audio.sample_rate) +
                                                     " Hz; it needs 24000 Hz (resample first)");
    return embed(audio.samples, ctx);
}

// ref: Qwen3TTSSpeakerEncoder.forward. Channels-last throughout: the official [B, C, T] tensors
// are our [T, C] rows, so the input transpose(1, 2) is a no-op here.
std::vector<float> SpeakerEncoder::embed_mel(const float* mel, int64_t n_frames,
                                             const backend::ExecContext& ctx) const {
    if (n_frames < min_frames_)
        throw Error(ErrorCode::invalid_argument, "speaker encoder: " + std::to_string(n_frames) +
                                                     " mel frames; the reflect "
                                                     "padding needs at least " +
                                                     std::to_string(min_frames_));
    const size_t T = size_t(n_frames);
    const int c0 = block0_.c_out();
    const int n_mels = mel_.params().n_mels;

    std::vector<float> x0(T * size_t(c0));  // blocks.0 output [T, ch0]
    block0_.forward(mel, n_mels, n_frames, x0.data(), c0, ctx);

    // Block outputs go straight into their columns of cat(x_1 .. x_{n-2}) [T, ch[-1]], the mfa
    // input; block b reads block b-1's columns.
    const int cat_width = mfa_.c_in();
    std::vector<float> cat(T * size_t(cat_width));
    const float* in = x0.data();
    int64_t ld_in = c0;
    int col = 0;
    for (const SeRes2NetBlock& b : blocks_) {
        b.forward(in, ld_in, n_frames, cat.data() + col, cat_width, ctx);
        in = cat.data() + col;
        ld_in = cat_width;
        col += b.channels();
    }

    std::vector<float> m(T * size_t(mfa_.c_out()));  // [T, ch[-1]]
    mfa_.forward(cat.data(), cat_width, n_frames, m.data(), mfa_.c_out(), ctx);

    const std::vector<float> pooled = asp_.forward(m.data(), mfa_.c_out(), n_frames, ctx);
    std::vector<float> xvec(static_cast<size_t>(enc_dim_));
    fc_.forward(pooled.data(), int64_t(pooled.size()), 1, xvec.data(), enc_dim_,
                {ctx.kernels, nullptr});
    return xvec;
}

void check_reference_audio(const Audio& audio, double max_seconds, const std::string& source) {
    const auto fail = [&](const std::string& why) {
        throw Error(ErrorCode::invalid_argument, source + " " + why);
    };
    const auto seconds = [](double s) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.2f s", s);
        return std::string(buf);
    };
    if (audio.samples.empty()) fail("is empty (no samples)");
    if (audio.sample_rate <= 0)
        fail("has no valid sample rate (" + std::to_string(audio.sample_rate) + ")");
    for (size_t i = 0; i < audio.samples.size(); ++i)
        if (!std::isfinite(audio.samples[i]))
            fail("has a non-finite sample at index " + std::to_string(i));
    const double dur = audio.duration_s();
    if (dur < kMinReferenceSeconds)
        fail("is " + seconds(dur) + " long; voice cloning needs at least " +
             seconds(kMinReferenceSeconds));
    if (dur > max_seconds)
        fail("is " + seconds(dur) + " long; the limit is " + seconds(max_seconds) +
             " (trim it to a few clean sentences)");
    const float peak = audio.peak();
    if (peak < kSilencePeak) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.3g", double(peak));
        fail("(" + seconds(dur) + ") is silent: peak " + buf + " < " + "1e-4");
    }
}

}  // namespace qwen3tts
