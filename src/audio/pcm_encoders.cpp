// WAV (PCM16 / float32), raw PCM16 and npy encoders, written byte by byte in little-endian
// order so that the output does not depend on the host.
// ref: WAVE format — Microsoft "Multimedia Programming Interface and Data Specifications 1.0"
//      (RIFF, fmt, data) and the IEEE-float amendment (format tag 3 with a fact chunk);
//      npy — numpy/lib/format.py (format version 1.0).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "audio/audio_encoder.hpp"
#include "core/error.hpp"

namespace qwen3tts {
namespace {

void put_u16(std::vector<uint8_t>& b, uint32_t v) {
    b.push_back(uint8_t(v));
    b.push_back(uint8_t(v >> 8));
}
void put_u32(std::vector<uint8_t>& b, uint32_t v) {
    for (int i = 0; i < 4; ++i) b.push_back(uint8_t(v >> (8 * i)));
}
void put_tag(std::vector<uint8_t>& b, const char* tag) {
    b.insert(b.end(), tag, tag + 4);
}

// float [-1, 1] → int16 the way libsndfile (and so Python soundfile.write) does: × 32767,
// round to nearest; diverges: clips out-of-range values instead of letting them wrap.
int16_t to_pcm16(float x) {
    const float v = std::nearbyint(x * 32767.0f);
    if (!(v > -32768.0f)) return -32768;  // also NaN
    if (v > 32767.0f) return 32767;
    return int16_t(v);
}

void append_pcm16(std::vector<uint8_t>& out, const float* x, size_t n) {
    const size_t at = out.size();
    out.resize(at + 2 * n);
    for (size_t i = 0; i < n; ++i) {
        const uint16_t v = uint16_t(to_pcm16(x[i]));
        out[at + 2 * i] = uint8_t(v);
        out[at + 2 * i + 1] = uint8_t(v >> 8);
    }
}

void append_f32(std::vector<uint8_t>& out, const float* x, size_t n) {
    const size_t at = out.size();
    out.resize(at + 4 * n);
    for (size_t i = 0; i < n; ++i) {
        uint32_t v;
        std::memcpy(&v, &x[i], 4);
        for (int k = 0; k < 4; ++k) out[at + 4 * i + size_t(k)] = uint8_t(v >> (8 * k));
    }
}

// RIFF/WAVE with a canonical 44-byte (PCM16) or 58-byte (float: fmt of 18 bytes + fact)
// header. Sizes are patched at finish() when the sink can seek; otherwise they stay
// 0xFFFFFFFF, which streaming readers (sox, ffmpeg, browsers) take as "until end of stream".
class WavEncoder final : public AudioEncoder {
  public:
    WavEncoder(ByteSink& sink, int sample_rate, int channels, bool is_float)
        : sink_(sink), channels_(channels), is_float_(is_float) {
        const uint32_t bytes_per_sample = is_float ? 4 : 2;
        std::vector<uint8_t> h;
        put_tag(h, "RIFF");
        put_u32(h, 0xFFFFFFFFu);
        put_tag(h, "WAVE");
        put_tag(h, "fmt ");
        put_u32(h, is_float ? 18 : 16);
        put_u16(h, is_float ? 3 : 1);  // WAVE_FORMAT_IEEE_FLOAT / WAVE_FORMAT_PCM
        put_u16(h, uint32_t(channels));
        put_u32(h, uint32_t(sample_rate));
        put_u32(h, uint32_t(sample_rate) * uint32_t(channels) * bytes_per_sample);
        put_u16(h, uint32_t(channels) * bytes_per_sample);
        put_u16(h, 8 * bytes_per_sample);
        if (is_float) {
            put_u16(h, 0);  // cbSize
            put_tag(h, "fact");
            put_u32(h, 4);
            fact_offset_ = h.size();
            put_u32(h, 0xFFFFFFFFu);  // frames per channel
        }
        put_tag(h, "data");
        data_size_offset_ = h.size();
        put_u32(h, 0xFFFFFFFFu);
        header_size_ = h.size();
        sink_.write(h.data(), h.size());
    }
    void write(const float* frames, size_t n_frames) override {
        buf_.clear();
        const size_t n = n_frames * size_t(channels_);
        if (is_float_)
            append_f32(buf_, frames, n);
        else
            append_pcm16(buf_, frames, n);
        sink_.write(buf_.data(), buf_.size());
        n_frames_ += n_frames;
    }
    void flush() override { sink_.flush(); }
    void finish() override {
        const uint64_t data_bytes = n_frames_ * uint64_t(channels_) * (is_float_ ? 4 : 2);
        if (data_bytes % 2) sink_.write("", 1);  // RIFF chunks are padded to even size
        if (!sink_.seekable()) return;
        // Beyond 4 GiB the sizes do not fit; leave them "unknown" as for a stream.
        const uint64_t riff = header_size_ - 8 + data_bytes + (data_bytes % 2);
        if (riff > 0xFFFFFFFFu) return;
        patch(4, uint32_t(riff));
        if (is_float_) patch(fact_offset_, uint32_t(n_frames_));
        patch(data_size_offset_, uint32_t(data_bytes));
        sink_.seek(sink_.size());
    }

  private:
    void patch(uint64_t offset, uint32_t value) {
        std::vector<uint8_t> b;
        put_u32(b, value);
        sink_.seek(offset);
        sink_.write(b.data(), b.size());
    }

    ByteSink& sink_;
    int channels_;
    bool is_float_;
    size_t fact_offset_ = 0;
    size_t data_size_offset_ = 0;
    size_t header_size_ = 0;
    uint64_t n_frames_ = 0;
    std::vector<uint8_t> buf_;
};

class RawPcm16Encoder final : public AudioEncoder {
  public:
    RawPcm16Encoder(ByteSink& sink, int channels) : sink_(sink), channels_(channels) {}
    void write(const float* frames, size_t n_frames) override {
        buf_.clear();
        append_pcm16(buf_, frames, n_frames * size_t(channels_));
        sink_.write(buf_.data(), buf_.size());
    }
    void flush() override { sink_.flush(); }
    void finish() override {}

  private:
    ByteSink& sink_;
    int channels_;
    std::vector<uint8_t> buf_;
};

// npy version 1.0, '<f4', shape (n,) for mono and (n, channels) otherwise. The header is
// written with a fixed 128-byte size so the final shape can be patched in place; a
// non-seekable sink gets everything at finish() instead.
class NpyEncoder final : public AudioEncoder {
  public:
    static constexpr size_t k_header_size = 128;

    NpyEncoder(ByteSink& sink, int channels) : sink_(sink), channels_(channels) {
        if (sink_.seekable()) {
            const std::vector<uint8_t> h = header(0);
            sink_.write(h.data(), h.size());
        }
    }
    void write(const float* frames, size_t n_frames) override {
        if (sink_.seekable()) {
            buf_.clear();
            append_f32(buf_, frames, n_frames * size_t(channels_));
            sink_.write(buf_.data(), buf_.size());
        } else {
            append_f32(buf_, frames, n_frames * size_t(channels_));
        }
        n_frames_ += n_frames;
    }
    void flush() override { sink_.flush(); }
    void finish() override {
        const std::vector<uint8_t> h = header(n_frames_);
        if (sink_.seekable()) {
            sink_.seek(0);
            sink_.write(h.data(), h.size());
            sink_.seek(sink_.size());
        } else {
            sink_.write(h.data(), h.size());
            sink_.write(buf_.data(), buf_.size());
            buf_.clear();
        }
    }

  private:
    std::vector<uint8_t> header(uint64_t n_frames) const {
        std::string dict =
            "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::to_string(n_frames) +
            (channels_ == 1 ? std::string(",") : ", " + std::to_string(channels_)) + "), }";
        QWEN3TTS_ASSERT(10 + dict.size() + 1 <= k_header_size);
        dict.append(k_header_size - 10 - dict.size() - 1, ' ');
        dict.push_back('\n');
        std::vector<uint8_t> h = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
        put_u16(h, uint32_t(dict.size()));
        h.insert(h.end(), dict.begin(), dict.end());
        return h;
    }

    ByteSink& sink_;
    int channels_;
    uint64_t n_frames_ = 0;
    std::vector<uint8_t> buf_;
};

}  // namespace

std::unique_ptr<AudioEncoder> make_audio_encoder(AudioFormat format, ByteSink& sink,
                                                 int sample_rate, int channels) {
    if (sample_rate <= 0)
        throw Error(ErrorCode::invalid_argument,
                    sink.name() + ": invalid sample rate " + std::to_string(sample_rate));
    if (channels < 1 || channels > 8)
        throw Error(ErrorCode::invalid_argument,
                    sink.name() + ": invalid channel count " + std::to_string(channels) + " (1-8)");
    switch (format) {
        case AudioFormat::wav_pcm16:
            return std::make_unique<WavEncoder>(sink, sample_rate, channels, false);
        case AudioFormat::wav_f32:
            return std::make_unique<WavEncoder>(sink, sample_rate, channels, true);
        case AudioFormat::raw_pcm16:
            return std::make_unique<RawPcm16Encoder>(sink, channels);
        case AudioFormat::npy_f32:
            return std::make_unique<NpyEncoder>(sink, channels);
        case AudioFormat::flac:
        case AudioFormat::ogg_opus:
        case AudioFormat::mp3:
            return make_sndfile_encoder(format, sink, sample_rate, channels);
    }
    QWEN3TTS_ASSERT(false);
    return nullptr;
}

}  // namespace qwen3tts
