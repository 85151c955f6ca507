#include "audio/audio_reader.hpp"

#include <sndfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "core/error.hpp"

namespace qwen3tts {
namespace {

const char* const k_readable = "WAV, FLAC, Ogg Vorbis, Ogg Opus, MP3";
constexpr int kMaxChannels = 1024;  // libsndfile's own limit (SF_MAX_CHANNELS)

std::string seconds(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f s", s);
    return buf;
}

// libsndfile's message without its trailing period, to nest it in ours.
std::string sndfile_reason(SNDFILE* sf) {
    std::string why = sf_strerror(sf);
    while (!why.empty() && (why.back() == '.' || why.back() == '\n')) why.pop_back();
    return why;
}

class SndfileReader {
  public:
    explicit SndfileReader(const std::string& path) : path_(path) {
        struct stat st {};
        if (::stat(path.c_str(), &st) != 0)
            throw Error(ErrorCode::io, path + ": cannot read audio (" +
                                           (errno == ENOENT ? std::string("no such file")
                                                            : std::string(std::strerror(errno))) +
                                           ")");
        if (S_ISDIR(st.st_mode))
            throw Error(ErrorCode::io, path + ": cannot read audio: it is a directory");
        if (::access(path.c_str(), R_OK) != 0)
            throw Error(ErrorCode::io, path + ": cannot read audio (" + std::strerror(errno) + ")");
        regular_file_ = S_ISREG(st.st_mode);
        if (regular_file_ && st.st_size == 0)
            throw Error(ErrorCode::format, path + ": audio file is empty (0 bytes)");
        sf_ = sf_open(path.c_str(), SFM_READ, &info_);
        if (!sf_)
            throw Error(ErrorCode::format, path + ": not an audio file that can be read (" +
                                               sndfile_reason(nullptr) +
                                               "; readable: " + k_readable + ")");
        if (info_.channels < 1 || info_.channels > kMaxChannels || info_.samplerate < 1)
            throw Error(ErrorCode::format, path + ": audio header has " +
                                               std::to_string(info_.channels) + " channels at " +
                                               std::to_string(info_.samplerate) + " Hz");
    }
    ~SndfileReader() {
        if (sf_) sf_close(sf_);
    }
    SndfileReader(const SndfileReader&) = delete;
    SndfileReader& operator=(const SndfileReader&) = delete;

    const SF_INFO& info() const { return info_; }

    // libsndfile bounds a regular file's length by its size; a pipe's header may hold a
    // placeholder (a streamed WAV says 2^31-1 frames), and SF_COUNT_MAX means unknown.
    bool length_known() const {
        return regular_file_ && info_.frames >= 0 && info_.frames < (int64_t(1) << 62);
    }

    // Decodes to the end, whatever the header claims (MP3/Ogg lengths are estimates). With
    // max_seconds > 0, a header that states a longer duration is refused before decoding, and
    // decoding stops with an error once it passes the limit (unknown or understated lengths).
    std::vector<float> read_mono(double max_seconds) {
        const int n_ch = info_.channels;
        const int rate = info_.samplerate;
        // Frames allowed; the limit is compared in frames so that a file of exactly
        // max_seconds passes.
        const double limit = max_seconds * double(rate);
        const int64_t max_frames = max_seconds > 0 && limit < 1e18 ? int64_t(std::ceil(limit)) : -1;
        const bool known_length = length_known();
        if (max_frames >= 0 && known_length && info_.frames > max_frames)
            throw Error(ErrorCode::invalid_argument,
                        path_ + ": audio is " + seconds(double(info_.frames) / rate) +
                            " long (from its header); the limit is " + seconds(max_seconds));
        std::vector<float> mono;
        // A header can lie: reserve no more than the limit, or 64 MB without one.
        if (known_length && info_.frames > 0)
            mono.reserve(size_t(
                std::min<int64_t>(info_.frames, max_frames >= 0 ? max_frames : int64_t(1) << 24)));
        const sf_count_t block = std::max<sf_count_t>(1, (sf_count_t(1) << 16) / n_ch);
        std::vector<float> buf(size_t(block) * size_t(n_ch));
        for (;;) {
            const sf_count_t got = sf_readf_float(sf_, buf.data(), block);
            if (got <= 0) break;
            if (max_frames >= 0 && int64_t(mono.size()) + got > max_frames)
                throw Error(ErrorCode::invalid_argument,
                            path_ + ": audio is longer than the limit of " + seconds(max_seconds) +
                                " (decoding stopped there)");
            if (n_ch == 1) {
                mono.insert(mono.end(), buf.begin(), buf.begin() + got);
                continue;
            }
            // Same arithmetic as numpy's float32 mean over the channel axis: sequential
            // float32 sum in channel order, then one division by the count.
            const float count = float(n_ch);
            for (sf_count_t i = 0; i < got; ++i) {
                const float* f = &buf[size_t(i) * size_t(n_ch)];
                float sum = f[0];
                for (int c = 1; c < n_ch; ++c) sum += f[c];
                mono.push_back(sum / count);
            }
        }
        if (sf_error(sf_) != SF_ERR_NO_ERROR)
            throw Error(ErrorCode::format,
                        path_ + ": audio data is damaged (" + sndfile_reason(sf_) + ")");
        return mono;
    }

    std::string format_name(int command, int format) const {
        SF_FORMAT_INFO fi{};
        fi.format = format;
        if (sf_command(nullptr, command, &fi, sizeof fi) != 0 || !fi.name) return "unknown";
        return fi.name;
    }

  private:
    std::string path_;
    bool regular_file_ = false;
    SF_INFO info_{};
    SNDFILE* sf_ = nullptr;
};

}  // namespace

float Audio::peak() const {
    float p = 0.0f;
    for (float x : samples) p = std::fmax(p, std::fabs(x));
    return p;
}

float Audio::rms() const {
    if (samples.empty()) return 0.0f;
    double sum = 0.0;
    for (float x : samples) sum += double(x) * double(x);
    return float(std::sqrt(sum / double(samples.size())));
}

Audio read_audio_file(const std::string& path, double max_seconds) {
    SndfileReader reader(path);
    Audio audio;
    audio.sample_rate = reader.info().samplerate;
    audio.samples = reader.read_mono(max_seconds);
    if (audio.samples.empty())
        throw Error(ErrorCode::format, path + ": audio file contains no samples");
    return audio;
}

AudioFileInfo read_audio_file_info(const std::string& path) {
    SndfileReader reader(path);
    const SF_INFO& si = reader.info();
    AudioFileInfo info;
    info.sample_rate = si.samplerate;
    info.channels = si.channels;
    info.frames = reader.length_known() ? int64_t(si.frames) : -1;
    info.container = reader.format_name(SFC_GET_FORMAT_INFO, si.format & SF_FORMAT_TYPEMASK);
    info.encoding = reader.format_name(SFC_GET_FORMAT_INFO, si.format & SF_FORMAT_SUBMASK);
    return info;
}

}  // namespace qwen3tts
