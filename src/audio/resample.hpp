// Sample-rate conversion with libsoxr, following the reference's recipe exactly: librosa ≥ 0.10
// `librosa.resample(y, orig_sr, target_sr)` (res_type "soxr_hq") → python-soxr
// `soxr.resample(y, orig_sr, target_sr, quality="HQ")` on float32 input.
// ref: librosa/core/audio.py resample; python-soxr src/soxr_ext.cpp csoxr_divide_proc.
// Thread-safe: no shared state.
#pragma once

#include <cstddef>
#include <vector>

struct soxr;  // libsoxr's resampler (soxr.h)

namespace qwen3tts {

// Mono float32 from from_rate to to_rate (both > 0, else Error(invalid_argument)):
// soxr_quality_spec(SOXR_HQ, 0), float32 in/out, default runtime spec, input fed in chunks of
// 48000·from/to samples then flushed, and the result cut or zero-padded to
// ceil(n · to/from) samples (librosa's fix_length). Equal rates return the input unchanged.
std::vector<float> resample(const std::vector<float>& in, int from_rate, int to_rate);

// Streaming conversion with the same soxr settings, for output at another rate (e.g. 24 kHz
// synthesis to a 48 kHz or 44.1 kHz file) chunk by chunk. Output lags the input by the filter
// delay and arrives in uneven pieces; flush() returns the tail. The concatenated output equals
// resample() before its length fix-up (soxr is invariant to how the input is split).
// Not thread-safe; one instance per stream.
class StreamResampler {
  public:
    StreamResampler(int from_rate, int to_rate);  // Error(invalid_argument) for rates <= 0
    ~StreamResampler();
    StreamResampler(const StreamResampler&) = delete;
    StreamResampler& operator=(const StreamResampler&) = delete;

    // Appends the converted samples available so far to `out`.
    void process(const float* in, size_t n, std::vector<float>& out);
    // Ends the stream: appends the remaining samples. process() may not follow.
    void flush(std::vector<float>& out);

    int from_rate() const { return from_rate_; }
    int to_rate() const { return to_rate_; }

  private:
    void run(const float* in, size_t n, std::vector<float>& out);

    int from_rate_;
    int to_rate_;
    struct soxr* soxr_ = nullptr;  // null when the rates are equal (pass-through)
    bool flushed_ = false;
};

}  // namespace qwen3tts
