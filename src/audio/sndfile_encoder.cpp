// FLAC, Ogg Opus and MP3 output through libsndfile's virtual I/O, so that the bytes go to any
// ByteSink (temporary file, stdout, callback).
//
// On a sink that cannot seek (pipe, callback):
// - FLAC: libFLAC's end-of-stream STREAMINFO rewrite is dropped (total samples and MD5 stay 0,
//   which the format defines as "unknown").
// - MP3: libsndfile only leaves out LAME's Xing/Info tag (whose placeholder frame would
//   otherwise stay in the stream as a frame of zeros) when it writes to a real pipe, so the
//   encoder writes into a pipe of its own that is drained into the sink after every call; and
//   the bit rate is constant, since without a Xing tag readers estimate a VBR stream's length
//   from its first frame (libsndfile's own reader then stops early).
// - Opus: nothing to rewrite; Ogg pages carry their own granule positions.
#include <fcntl.h>
#include <sndfile.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "audio/audio_encoder.hpp"
#include "core/error.hpp"

namespace qwen3tts {
namespace {

// State shared with the C callbacks. Exceptions must not cross libsndfile's C frames: a
// callback stores the first one and reports failure; the encoder rethrows it afterwards.
struct VioState {
    ByteSink* sink = nullptr;
    bool discard = false;    // inside a rejected seek: drop header rewrites
    bool abandoned = false;  // closing without finish(): drop everything
    std::exception_ptr error;
};

sf_count_t vio_get_filelen(void* user) {
    return sf_count_t(static_cast<VioState*>(user)->sink->size());
}

sf_count_t vio_seek(sf_count_t offset, int whence, void* user) {
    auto* s = static_cast<VioState*>(user);
    sf_count_t target = offset;
    if (whence == SEEK_CUR) target += sf_count_t(s->sink->tell());
    if (whence == SEEK_END) target += sf_count_t(s->sink->size());
    if (target < 0) return -1;
    if (s->sink->seekable() && !s->error) {
        try {
            s->sink->seek(uint64_t(target));
        } catch (...) {
            s->error = std::current_exception();
            return -1;
        }
        s->discard = false;
        return target;
    }
    if (uint64_t(target) == s->sink->tell()) {
        s->discard = false;
        return target;
    }
    s->discard = true;
    return -1;
}

sf_count_t vio_read(void*, sf_count_t, void*) {
    return 0;
}

sf_count_t vio_write(const void* ptr, sf_count_t count, void* user) {
    auto* s = static_cast<VioState*>(user);
    if (s->abandoned || s->discard) return count;
    if (s->error) return 0;
    try {
        s->sink->write(ptr, size_t(count));
    } catch (...) {
        s->error = std::current_exception();
        return 0;
    }
    return count;
}

sf_count_t vio_tell(void* user) {
    return sf_count_t(static_cast<VioState*>(user)->sink->tell());
}

bool is_opus_rate(int rate) {
    return rate == 8000 || rate == 12000 || rate == 16000 || rate == 24000 || rate == 48000;
}

bool is_mp3_rate(int rate) {
    for (int r : {8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000})
        if (rate == r) return true;
    return false;
}

class SndfileEncoder final : public AudioEncoder {
  public:
    SndfileEncoder(AudioFormat format, ByteSink& sink, int sample_rate, int channels)
        : sink_(sink), channels_(channels) {
        const std::string& name = sink.name();
        SF_INFO info{};
        info.samplerate = sample_rate;
        info.channels = channels;
        switch (format) {
            case AudioFormat::flac:
                info.format = SF_FORMAT_FLAC | SF_FORMAT_PCM_16;
                break;
            case AudioFormat::ogg_opus:
                if (!is_opus_rate(sample_rate))
                    throw Error(ErrorCode::invalid_argument,
                                name + ": Opus cannot carry " + std::to_string(sample_rate) +
                                    " Hz (only 8000, 12000, 16000, 24000, 48000)");
                info.format = SF_FORMAT_OGG | SF_FORMAT_OPUS;
                break;
            case AudioFormat::mp3:
                if (!is_mp3_rate(sample_rate) || channels > 2)
                    throw Error(ErrorCode::invalid_argument,
                                name + ": MP3 cannot carry " + std::to_string(sample_rate) +
                                    " Hz, " + std::to_string(channels) +
                                    " channels (8000-48000 Hz MPEG rates, 1-2 channels)");
                info.format = SF_FORMAT_MPEG | SF_FORMAT_MPEG_LAYER_III;
                break;
            default:
                QWEN3TTS_ASSERT(false);
        }
        if (!sf_format_check(&info))
            throw Error(ErrorCode::unsupported, name + ": this libsndfile cannot write " +
                                                    audio_format_name(format) + " at " +
                                                    std::to_string(sample_rate) + " Hz, " +
                                                    std::to_string(channels) + " channels");
        if (format == AudioFormat::mp3 && !sink.seekable()) {
            open_through_pipe(info);
        } else {
            state_.sink = &sink;
            vio_ = SF_VIRTUAL_IO{vio_get_filelen, vio_seek, vio_read, vio_write, vio_tell};
            sf_ = sf_open_virtual(&vio_, SFM_WRITE, &info, &state_);
        }
        if (!sf_) {
            rethrow_callback_error();
            throw Error(ErrorCode::io, name + ": cannot start the " + audio_format_name(format) +
                                           " encoder (" + sf_strerror(nullptr) + ")");
        }
        // Clip instead of wrapping samples outside [-1, 1] when converting to integers.
        sf_command(sf_, SFC_SET_CLIPPING, nullptr, SF_TRUE);
        if (format == AudioFormat::ogg_opus) {
            // Close an Ogg page about every 40 ms of audio (default: 1 s) so that streamed
            // output reaches the listener chunk by chunk.
            double latency_ms = 40.0;
            sf_command(sf_, SFC_SET_OGG_PAGE_LATENCY_MS, &latency_ms, sizeof latency_ms);
        }
        if (pipe_read_ >= 0) {
            // 64 kbit/s at 24 kHz (MPEG-2 range 8-160: 160 - c·152), 138 → 128 at 44.1/48 kHz.
            int mode = SF_BITRATE_MODE_CONSTANT;
            double level = 96.0 / 152.0;
            sf_command(sf_, SFC_SET_BITRATE_MODE, &mode, sizeof mode);
            sf_command(sf_, SFC_SET_COMPRESSION_LEVEL, &level, sizeof level);
        }
    }

    ~SndfileEncoder() override {
        if (sf_) {
            state_.abandoned = true;
            sf_close(sf_);
        }
        if (pipe_read_ >= 0) ::close(pipe_read_);
    }

    void write(const float* frames, size_t n_frames) override {
        QWEN3TTS_ASSERT(sf_ != nullptr);
        // Through the pipe, keep each call's output far below the pipe's capacity (a slice of
        // 4096 frames is at most ~4 KB of MP3) so that libsndfile never blocks on it.
        const size_t slice = pipe_read_ >= 0 ? 4096 : n_frames;
        for (size_t at = 0; at < n_frames; at += slice) {
            const size_t n = std::min(slice, n_frames - at);
            const sf_count_t done =
                sf_writef_float(sf_, frames + at * size_t(channels_), sf_count_t(n));
            rethrow_callback_error();
            if (done != sf_count_t(n))
                throw Error(ErrorCode::io,
                            sink_.name() + ": encoding failed (" + sf_strerror(sf_) + ")");
            drain_pipe();
        }
    }

    void flush() override { sink_.flush(); }

    void finish() override {
        QWEN3TTS_ASSERT(sf_ != nullptr);
        const int rc = sf_close(sf_);  // closes the pipe's write end, if any
        sf_ = nullptr;
        rethrow_callback_error();
        drain_pipe();
        if (rc != 0)
            throw Error(ErrorCode::io, sink_.name() + ": finishing the encoded stream failed (" +
                                           sf_error_number(rc) + ")");
        if (sink_.seekable()) sink_.seek(sink_.size());
    }

  private:
    void open_through_pipe(SF_INFO& info) {
        int fds[2];
        if (::pipe2(fds, O_CLOEXEC) != 0)
            throw Error(ErrorCode::io, sink_.name() +
                                           ": cannot create a pipe for the MP3 encoder (" +
                                           std::strerror(errno) + ")");
        ::fcntl(fds[0], F_SETFL, O_NONBLOCK);
        pipe_read_ = fds[0];
        sf_ = sf_open_fd(fds[1], SFM_WRITE, &info, SF_TRUE);  // owns fds[1] from here on
    }

    // Moves what the encoder has written into the pipe to the sink. libsndfile writes
    // synchronously, so after each call (and after sf_close) everything is already in the pipe:
    // read until it is empty, without waiting for an end of file that a forked process holding
    // the write end could delay.
    void drain_pipe() {
        if (pipe_read_ < 0) return;
        std::vector<uint8_t> buf(65536);
        for (;;) {
            const ssize_t k = ::read(pipe_read_, buf.data(), buf.size());
            if (k > 0) {
                sink_.write(buf.data(), size_t(k));
                continue;
            }
            if (k < 0 && errno == EINTR) continue;
            if (k == 0 || errno == EAGAIN) return;
            throw Error(ErrorCode::io, sink_.name() + ": reading the MP3 encoder's pipe failed (" +
                                           std::strerror(errno) + ")");
        }
    }

    void rethrow_callback_error() {
        if (state_.error) {
            std::exception_ptr e = state_.error;
            state_.error = nullptr;
            std::rethrow_exception(e);
        }
    }

    ByteSink& sink_;
    int channels_;
    int pipe_read_ = -1;  // read end of the MP3 encoder's pipe (non-seekable sinks)
    VioState state_;
    SF_VIRTUAL_IO vio_{};
    SNDFILE* sf_ = nullptr;
};

}  // namespace

std::unique_ptr<AudioEncoder> make_sndfile_encoder(AudioFormat format, ByteSink& sink,
                                                   int sample_rate, int channels) {
    return std::make_unique<SndfileEncoder>(format, sink, sample_rate, channels);
}

}  // namespace qwen3tts
