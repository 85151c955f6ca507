// Audio writing and reading, checked with an independent reader: each output format gets a
// 440 Hz sine (1.3 s at 24 kHz = 31200 samples, amplitude 0.5) written chunk by chunk (1920
// samples, one codec frame), then read back with sox/soxi (Debian's sox: libsndfile is not
// involved for WAV, FLAC (libFLAC), MP3 (libmad) or raw), or parsed by hand (Ogg Opus, npy),
// and with read_audio_file.
#include <glob.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "audio/audio.hpp"
#include "core/error.hpp"
#include "core/npy.hpp"
#include "support/test_support.hpp"

namespace qwen3tts {
namespace {

using testing::run_shell;
using testing::shell_quote;

constexpr double k_pi = 3.14159265358979323846;
constexpr int k_rate = 24000;
constexpr size_t k_n = 31200;     // 1.3 s
constexpr size_t k_chunk = 1920;  // one codec frame at 24 kHz

std::vector<float> sine(size_t n = k_n, double freq = 440.0, double amp = 0.5, int rate = k_rate) {
    std::vector<float> x(n);
    for (size_t i = 0; i < n; ++i) x[i] = float(amp * std::sin(2 * k_pi * freq * double(i) / rate));
    return x;
}

double tone_amplitude(const std::vector<float>& x, double freq, size_t begin, size_t end,
                      int rate = k_rate) {
    std::complex<double> acc = 0;
    for (size_t i = begin; i < end; ++i)
        acc += double(x[i]) * std::polar(1.0, -2 * k_pi * freq * double(i) / rate);
    return 2.0 * std::abs(acc) / double(end - begin);
}

double zero_crossing_freq(const std::vector<float>& x, size_t begin, size_t end,
                          int rate = k_rate) {
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

std::string tmp(const std::string& name) {
    const std::string dir = testing::tmp_dir() + "/audio_io";
    ::mkdir(dir.c_str(), 0755);
    return dir + "/" + name;
}

bool exists(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0;
}

std::vector<uint8_t> read_bytes(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

void write_bytes(const std::string& path, const std::vector<uint8_t>& b) {
    std::ofstream f(path, std::ios::binary);
    f.write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
}

std::vector<float> read_f32(const std::string& path) {
    const std::vector<uint8_t> b = read_bytes(path);
    std::vector<float> x(b.size() / 4);
    std::memcpy(x.data(), b.data(), x.size() * 4);
    return x;
}

uint32_t u32_at(const std::vector<uint8_t>& b, size_t at) {
    return uint32_t(b[at]) | uint32_t(b[at + 1]) << 8 | uint32_t(b[at + 2]) << 16 |
           uint32_t(b[at + 3]) << 24;
}

// Runs a shell command that must succeed; returns its output without the trailing newline.
std::string sh(const std::string& cmd) {
    const testing::CommandResult r = run_shell(cmd);
    EXPECT_EQ(r.exit_code, 0) << cmd << "\n" << r.output;
    std::string out = r.output;
    while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
    return out;
}

// Decodes any file sox reads to float32 samples (sox's own decoders).
std::vector<float> sox_decode(const std::string& path, const std::string& input_opts = "") {
    const std::string out = path + ".sox.f32";
    sh("sox " + input_opts + " " + shell_quote(path) + " -t f32 " + shell_quote(out));
    return read_f32(out);
}

// Streams the test sine through an AudioWriter in codec-frame chunks.
void write_chunked(const std::string& path, AudioFormat format, const std::vector<float>& x) {
    AudioWriter w(path, format, k_rate);
    for (size_t at = 0; at < x.size(); at += k_chunk)
        w.write(x.data() + at, std::min(k_chunk, x.size() - at));
    EXPECT_EQ(w.frames_written(), int64_t(x.size()));
    w.finish();
}

// PCM16 as written (×32767, rounded) and read by sox/libsndfile (÷32768) stays within one
// step of the original for |x| ≤ 0.5.
void expect_pcm16_close(const std::vector<float>& got, const std::vector<float>& want) {
    ASSERT_EQ(got.size(), want.size());
    double max_err = 0;
    for (size_t i = 0; i < got.size(); ++i)
        max_err = std::max(max_err, std::fabs(double(got[i]) - double(want[i])));
    EXPECT_LE(max_err, 1.0 / 32768 + 1e-9);
}

// ---------------------------------------------------------------------------------------
// Each output format, read by an independent reader.

TEST(audio_write, WavPcm16ReadBySox) {
    const std::string path = tmp("sine16.wav");
    const std::vector<float> x = sine();
    write_chunked(path, AudioFormat::wav_pcm16, x);
    EXPECT_EQ(sh("soxi -r " + path), "24000");
    EXPECT_EQ(sh("soxi -s " + path), std::to_string(k_n));
    EXPECT_EQ(sh("soxi -c " + path), "1");
    EXPECT_EQ(sh("soxi -b " + path), "16");
    EXPECT_EQ(sh("soxi -e " + path), "Signed Integer PCM");
    const std::vector<uint8_t> b = read_bytes(path);
    ASSERT_EQ(b.size(), 44 + 2 * k_n);  // canonical header, sizes patched
    EXPECT_EQ(u32_at(b, 4), 36 + 2 * k_n);
    EXPECT_EQ(u32_at(b, 40), 2 * k_n);
    expect_pcm16_close(sox_decode(path), x);
}

TEST(audio_write, WavFloat32ReadBySox) {
    const std::string path = tmp("sinef32.wav");
    const std::vector<float> x = sine();
    write_chunked(path, AudioFormat::wav_f32, x);
    EXPECT_EQ(sh("soxi -r " + path), "24000");
    EXPECT_EQ(sh("soxi -s " + path), std::to_string(k_n));
    EXPECT_EQ(sh("soxi -b " + path), "32");
    EXPECT_EQ(sh("soxi -e " + path), "Floating Point PCM");
    const std::vector<float> got = sox_decode(path);
    ASSERT_EQ(got.size(), k_n);
    for (size_t i = 0; i < k_n; ++i)
        ASSERT_NEAR(got[i], x[i], 1e-7) << i;  // sox: 32-bit int inside
    const Audio a = read_audio_file(path);
    EXPECT_EQ(a.sample_rate, k_rate);
    EXPECT_EQ(a.samples, x);  // float WAV is exact
}

TEST(audio_write, RawPcm16ReadBySox) {
    const std::string path = tmp("sine.pcm");
    const std::vector<float> x = sine();
    write_chunked(path, AudioFormat::raw_pcm16, x);
    EXPECT_EQ(read_bytes(path).size(), 2 * k_n);
    expect_pcm16_close(sox_decode(path, "-t raw -e signed-integer -b 16 -L -c 1 -r 24000"), x);
}

TEST(audio_write, FlacReadBySox) {
    const std::string path = tmp("sine.flac");
    const std::vector<float> x = sine();
    write_chunked(path, AudioFormat::flac, x);
    EXPECT_EQ(sh("soxi -t " + path), "flac");
    EXPECT_EQ(sh("soxi -r " + path), "24000");
    EXPECT_EQ(sh("soxi -s " + path), std::to_string(k_n));  // STREAMINFO total samples
    EXPECT_EQ(sh("soxi -b " + path), "16");
    expect_pcm16_close(sox_decode(path), x);
    const Audio a = read_audio_file(path);
    EXPECT_EQ(a.sample_rate, k_rate);
    expect_pcm16_close(a.samples, x);
}

TEST(audio_write, NpyReadByNpyReader) {
    const std::string path = tmp("sine.npy");
    const std::vector<float> x = sine();
    write_chunked(path, AudioFormat::npy_f32, x);
    const std::vector<uint8_t> b = read_bytes(path);
    ASSERT_EQ(b.size(), 128 + 4 * k_n);
    EXPECT_EQ(std::string(b.begin() + 1, b.begin() + 6), "NUMPY");
    EXPECT_EQ(b[127], '\n');  // header padded to a multiple of 64 bytes
    const NpyArray a = read_npy(path);
    EXPECT_EQ(a.descr, "<f4");
    EXPECT_EQ(a.shape, std::vector<int64_t>{int64_t(k_n)});
    EXPECT_EQ(a.to_f32(), x);
}

// --- Ogg Opus: Debian's sox has no Opus reader, so the container is parsed here (RFC 3533
// pages, RFC 7845 OpusHead) and the end trimming checked: last granule − pre-skip = samples
// at 48 kHz. The decoded audio comes from read_audio_file (libsndfile → libopus), and from
// opusdec when opus-tools is installed.

struct OggPage {
    uint8_t header_type = 0;
    int64_t granule = 0;
    uint32_t serial = 0;
    std::vector<uint8_t> body;
};

uint32_t ogg_crc(const uint8_t* data, size_t n) {
    uint32_t crc = 0;
    for (size_t i = 0; i < n; ++i) {
        crc ^= uint32_t(data[i]) << 24;
        for (int k = 0; k < 8; ++k) crc = (crc & 0x80000000u) ? (crc << 1) ^ 0x04C11DB7u : crc << 1;
    }
    return crc;
}

std::vector<OggPage> parse_ogg(const std::vector<uint8_t>& b) {
    std::vector<OggPage> pages;
    size_t at = 0;
    while (at + 27 <= b.size()) {
        EXPECT_EQ(std::string(b.begin() + long(at), b.begin() + long(at) + 4), "OggS") << at;
        if (std::string(b.begin() + long(at), b.begin() + long(at) + 4) != "OggS") break;
        OggPage p;
        p.header_type = b[at + 5];
        for (int i = 7; i >= 0; --i) p.granule = (p.granule << 8) | b[at + 6 + size_t(i)];
        p.serial = u32_at(b, at + 14);
        const uint32_t crc = u32_at(b, at + 22);
        const size_t n_seg = b[at + 26];
        size_t body = 0;
        for (size_t s = 0; s < n_seg; ++s) body += b[at + 27 + s];
        const size_t len = 27 + n_seg + body;
        EXPECT_LE(at + len, b.size());
        if (at + len > b.size()) break;
        std::vector<uint8_t> page(b.begin() + long(at), b.begin() + long(at + len));
        page[22] = page[23] = page[24] = page[25] = 0;
        EXPECT_EQ(ogg_crc(page.data(), page.size()), crc) << "page at byte " << at;
        p.body.assign(b.begin() + long(at + 27 + n_seg), b.begin() + long(at + len));
        pages.push_back(p);
        at += len;
    }
    EXPECT_EQ(at, b.size());
    return pages;
}

void expect_valid_ogg_opus(const std::vector<uint8_t>& bytes, size_t n_samples) {
    const std::vector<OggPage> pages = parse_ogg(bytes);
    ASSERT_GE(pages.size(), 3u);
    const std::vector<uint8_t>& head = pages[0].body;
    ASSERT_GE(head.size(), 19u);
    EXPECT_EQ(std::string(head.begin(), head.begin() + 8), "OpusHead");
    EXPECT_EQ(head[8], 1);  // version
    EXPECT_EQ(head[9], 1);  // channels
    const uint32_t pre_skip = uint32_t(head[10]) | uint32_t(head[11]) << 8;
    EXPECT_EQ(u32_at(head, 12), uint32_t(k_rate));  // input sample rate
    EXPECT_EQ(std::string(pages[1].body.begin(), pages[1].body.begin() + 8), "OpusTags");
    EXPECT_TRUE(pages[0].header_type & 0x02);      // beginning of stream
    EXPECT_TRUE(pages.back().header_type & 0x04);  // end of stream
    // Opus always decodes at 48 kHz: 2 output samples per 24 kHz input sample.
    EXPECT_EQ(pages.back().granule - int64_t(pre_skip), int64_t(2 * n_samples));
    EXPECT_GT(pre_skip, 0u);
    EXPECT_LT(pre_skip, 48000u / 10);
}

TEST(audio_write, OggOpusContainerAndDecode) {
    const std::string path = tmp("sine.opus");
    const std::vector<float> x = sine();
    write_chunked(path, AudioFormat::ogg_opus, x);
    const std::vector<uint8_t> bytes = read_bytes(path);
    expect_valid_ogg_opus(bytes, k_n);
    // Pages are closed about every 40 ms, so a stream is playable chunk by chunk.
    EXPECT_GE(parse_ogg(bytes).size(), k_n / k_chunk);

    const Audio a = read_audio_file(path);
    EXPECT_EQ(a.sample_rate, k_rate);
    EXPECT_EQ(a.samples.size(), k_n);  // pre-skip and end trimming applied
    EXPECT_NEAR(tone_amplitude(a.samples, 440.0, 2400, 26400), 0.5, 0.03);
    EXPECT_NEAR(zero_crossing_freq(a.samples, 2400, 26400), 440.0, 0.5);

    if (run_shell("command -v opusdec").exit_code == 0) {
        const std::string out = path + ".opusdec.wav";
        sh("opusdec --quiet --rate 24000 " + path + " " + out);
        EXPECT_EQ(sh("soxi -s " + out), std::to_string(k_n));
    }
}

// --- MP3: sox decodes with libmad, which does not apply LAME's gapless trimming, so its length
// is encoder delay + samples + padding, all read from the LAME tag that libsndfile writes.

struct LameTag {
    int delay = -1;
    int padding = -1;
};

LameTag lame_tag(const std::vector<uint8_t>& b) {
    const std::string s(b.begin(), b.begin() + long(std::min<size_t>(b.size(), 2048)));
    const size_t xing = std::min(s.find("Xing"), s.find("Info"));
    const size_t at = s.find("LAME");
    LameTag t;
    if (xing == std::string::npos || at == std::string::npos) return t;
    // LAME tag: 9-byte version string, then ... the 24-bit delay/padding field at offset 21.
    t.delay = (b[at + 21] << 4) | (b[at + 22] >> 4);
    t.padding = ((b[at + 22] & 0x0f) << 8) | b[at + 23];
    return t;
}

TEST(audio_write, Mp3ReadBySox) {
    const std::string path = tmp("sine.mp3");
    const std::vector<float> x = sine();
    write_chunked(path, AudioFormat::mp3, x);
    EXPECT_EQ(sh("soxi -r " + path), "24000");
    EXPECT_EQ(sh("soxi -c " + path), "1");
    const LameTag tag = lame_tag(read_bytes(path));
    ASSERT_GE(tag.delay, 0) << "no Xing/LAME tag";
    // MPEG-2 layer III at 24 kHz: 576 samples per frame. The decoded length is whole frames.
    const std::vector<float> got = sox_decode(path);
    EXPECT_EQ(got.size() % 576, 0u);
    EXPECT_EQ(got.size(), k_n + size_t(tag.delay) + size_t(tag.padding));
    EXPECT_GE(got.size(), k_n);
    EXPECT_LE(got.size(), k_n + 3 * 576);
    const size_t d = size_t(tag.delay);
    EXPECT_NEAR(tone_amplitude(got, 440.0, d + 2400, d + 26400), 0.5, 0.03);
    EXPECT_NEAR(zero_crossing_freq(got, d + 2400, d + 26400), 440.0, 0.5);

    // libsndfile's mpg123 reader applies the gapless trimming: exact length.
    const Audio a = read_audio_file(path);
    EXPECT_EQ(a.sample_rate, k_rate);
    EXPECT_EQ(a.samples.size(), k_n);
    EXPECT_NEAR(tone_amplitude(a.samples, 440.0, 2400, 26400), 0.5, 0.03);
}

// ---------------------------------------------------------------------------------------
// Reading.

TEST(audio_read, RoundTripPcm16Wav) {
    const std::string path = tmp("roundtrip16.wav");
    const std::vector<float> x = sine();
    write_audio_file(path, AudioFormat::wav_pcm16, x, k_rate);
    const Audio a = read_audio_file(path);
    EXPECT_EQ(a.sample_rate, k_rate);
    expect_pcm16_close(a.samples, x);
    EXPECT_NEAR(a.duration_s(), 1.3, 1e-12);
    EXPECT_NEAR(a.peak(), 0.5, 1.0 / 32768);
    EXPECT_NEAR(a.rms(), 0.5 / std::sqrt(2.0), 1e-3);
    const AudioFileInfo info = read_audio_file_info(path);
    EXPECT_EQ(info.sample_rate, k_rate);
    EXPECT_EQ(info.channels, 1);
    EXPECT_EQ(info.frames, int64_t(k_n));
    EXPECT_NEAR(info.duration_s(), 1.3, 1e-12);
    EXPECT_EQ(info.encoding, "Signed 16 bit PCM");
}

TEST(audio_read, StereoIsMeanOfChannels) {
    // A stereo file made by sox: 300 Hz left, 500 Hz right, 0.5 s at 16 kHz, float samples.
    const std::string path = tmp("stereo.wav");
    sh("sox -n -r 16000 -c 2 -e floating-point -b 32 " + path +
       " synth 0.5 sine 300 sine 500 vol 0.8");
    const std::vector<float> lr = sox_decode(path);  // interleaved
    ASSERT_EQ(lr.size(), 2 * 8000u);
    const Audio a = read_audio_file(path);
    EXPECT_EQ(a.sample_rate, 16000);
    ASSERT_EQ(a.samples.size(), 8000u);
    for (size_t i = 0; i < 8000; ++i)
        ASSERT_NEAR(a.samples[i], (lr[2 * i] + lr[2 * i + 1]) / 2.0f, 1e-7) << i;
    EXPECT_NEAR(tone_amplitude(a.samples, 300.0, 0, 8000, 16000), 0.4, 0.01);
    EXPECT_NEAR(tone_amplitude(a.samples, 500.0, 0, 8000, 16000), 0.4, 0.01);
}

TEST(audio_read, ReadsOtherRatesAndEncodingsMadeBySox) {
    const std::string wav = tmp("sox44k.wav");
    sh("sox -n -r 44100 -b 24 " + wav + " synth 1.0 sine 440 vol 0.5");
    Audio a = read_audio_file(wav);
    EXPECT_EQ(a.sample_rate, 44100);
    EXPECT_EQ(a.samples.size(), 44100u);
    EXPECT_NEAR(tone_amplitude(a.samples, 440.0, 0, 44100, 44100), 0.5, 1e-3);

    const std::string ogg = tmp("sox.ogg");  // Ogg Vorbis, encoded by sox's libvorbis
    sh("sox -n -r 22050 " + ogg + " synth 1.0 sine 440 vol 0.5");
    a = read_audio_file(ogg);
    EXPECT_EQ(a.sample_rate, 22050);
    EXPECT_EQ(a.samples.size(), 22050u);
    EXPECT_NEAR(tone_amplitude(a.samples, 440.0, 2205, 22050 - 2205, 22050), 0.5, 0.02);

    const std::string mp3 = tmp("sox.mp3");  // MP3 encoded by sox's LAME
    sh("sox -n -r 16000 " + mp3 + " synth 1.0 sine 440 vol 0.5");
    a = read_audio_file(mp3);
    EXPECT_EQ(a.sample_rate, 16000);
    // sox writes no LAME gapless tag: the decoder's output keeps the encoder delay and the
    // padding to whole 576-sample frames.
    EXPECT_GE(a.samples.size(), 16000u);
    EXPECT_LE(a.samples.size(), 16000u + 3 * 576);
    EXPECT_NEAR(tone_amplitude(a.samples, 440.0, 2000, 14000, 16000), 0.5, 0.03);
}

// ---------------------------------------------------------------------------------------
// Partial-file guarantee and flushing.

// Files whose names start with path (the final file or its temporaries).
std::vector<std::string> leftovers(const std::string& path) {
    std::vector<std::string> names;
    glob_t g{};
    if (::glob((path + "*").c_str(), 0, nullptr, &g) == 0)
        for (size_t i = 0; i < g.gl_pathc; ++i) names.push_back(g.gl_pathv[i]);
    ::globfree(&g);
    return names;
}

TEST(audio_writer, DestroyedWithoutFinishLeavesNoFile) {
    for (AudioFormat f : {AudioFormat::wav_pcm16, AudioFormat::flac, AudioFormat::ogg_opus,
                          AudioFormat::mp3, AudioFormat::npy_f32}) {
        const std::string path =
            tmp(std::string("partial_") + audio_format_name(f) + audio_format_extension(f));
        std::remove(path.c_str());
        {
            AudioWriter w(path, f, k_rate);
            const std::vector<float> x = sine(4 * k_chunk);
            w.write(x.data(), x.size());
            EXPECT_FALSE(exists(path)) << path;
            EXPECT_EQ(leftovers(path).size(), 1u) << "the temporary exists while writing";
        }
        EXPECT_FALSE(exists(path)) << path;
        EXPECT_TRUE(leftovers(path).empty()) << leftovers(path)[0];
    }
}

TEST(audio_writer, FirstChunkReachesTheFileBeforeFinish) {
    const std::string path = tmp("flushed.wav");
    std::remove(path.c_str());
    AudioWriter w(path, AudioFormat::wav_pcm16, k_rate);
    const std::vector<float> x = sine(k_chunk);
    w.write(x.data(), x.size());
    const std::vector<std::string> tmps = leftovers(path);
    ASSERT_EQ(tmps.size(), 1u);
    EXPECT_EQ(read_bytes(tmps[0]).size(), 44 + 2 * k_chunk);
    w.finish();
    EXPECT_EQ(read_bytes(path).size(), 44 + 2 * k_chunk);
    EXPECT_THROW(w.write(x.data(), x.size()), Error);
}

TEST(audio_writer, FinishReplacesAnExistingFile) {
    const std::string path = tmp("replace.wav");
    write_bytes(path, std::vector<uint8_t>(10, 'x'));
    write_audio_file(path, AudioFormat::wav_pcm16, sine(100), k_rate);
    EXPECT_EQ(read_bytes(path).size(), 44 + 200u);
}

TEST(audio_writer, CallbackReceivesAStreamSoxCanRead) {
    std::vector<uint8_t> bytes;
    size_t after_first_chunk = 0;
    {
        AudioWriter w(
            [&](const void* p, size_t n) {
                const auto* c = static_cast<const uint8_t*>(p);
                bytes.insert(bytes.end(), c, c + n);
            },
            AudioFormat::wav_pcm16, k_rate);
        const std::vector<float> x = sine();
        w.write(x.data(), k_chunk);
        after_first_chunk = bytes.size();
        w.write(x.data() + k_chunk, x.size() - k_chunk);
        w.finish();
    }
    EXPECT_EQ(after_first_chunk, 44 + 2 * k_chunk);
    EXPECT_EQ(u32_at(bytes, 40), 0xFFFFFFFFu);  // unknown length, as on a pipe
    const std::string path = tmp("callback.wav");
    write_bytes(path, bytes);
    const testing::CommandResult r =
        run_shell("cat " + path + " | sox -t wav - -t f32 " + path + ".f32");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    expect_pcm16_close(read_f32(path + ".f32"), sine());
}

TEST(audio_writer, CallbackExceptionPropagates) {
    for (AudioFormat f : {AudioFormat::wav_pcm16, AudioFormat::flac}) {
        int calls = 0;
        auto fail = [&](const void*, size_t) {
            if (++calls > 1) throw Error(ErrorCode::io, "client went away");
        };
        try {
            AudioWriter w(fail, f, k_rate);
            const std::vector<float> x = sine();
            w.write(x.data(), x.size());
            w.finish();
            FAIL() << "no error for " << audio_format_name(f);
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("client went away"), std::string::npos);
        }
    }
}

// ---------------------------------------------------------------------------------------
// Errors.

template <class F>
Error error_of(F&& f) {
    try {
        f();
    } catch (const Error& e) {
        return e;
    }
    ADD_FAILURE() << "no error thrown";
    return Error(ErrorCode::internal, "");
}

void expect_error(const Error& e, ErrorCode code, const std::string& needle1,
                  const std::string& needle2 = "") {
    EXPECT_EQ(int(e.code()), int(code)) << e.what();
    EXPECT_NE(std::string(e.what()).find(needle1), std::string::npos) << e.what();
    if (!needle2.empty()) {
        EXPECT_NE(std::string(e.what()).find(needle2), std::string::npos) << e.what();
    }
}

TEST(audio_errors, WriteIntoMissingDirectory) {
    const std::string path = tmp("no_such_dir/out.wav");
    expect_error(
        error_of([&] { write_audio_file(path, AudioFormat::wav_pcm16, sine(10), k_rate); }),
        ErrorCode::io, path, "does not exist");
}

TEST(audio_errors, WriteOntoADirectory) {
    const std::string path = tmp("a_directory.wav");
    ::mkdir(path.c_str(), 0755);
    expect_error(error_of([&] { AudioWriter w(path, AudioFormat::flac, k_rate); }), ErrorCode::io,
                 path, "directory");
}

TEST(audio_errors, WriteWithoutPermission) {
    std::string path;
    if (::geteuid() == 0) {
        path = "/proc/qwen3tts_test.wav";  // root ignores mode bits; /proc refuses new files
    } else {
        const std::string dir = tmp("read_only_dir");
        ::mkdir(dir.c_str(), 0755);
        ::chmod(dir.c_str(), 0555);
        path = dir + "/out.wav";
    }
    expect_error(
        error_of([&] { write_audio_file(path, AudioFormat::wav_pcm16, sine(10), k_rate); }),
        ErrorCode::io, path, "cannot open for writing");
}

TEST(audio_errors, FormatCannotCarryTheRate) {
    expect_error(error_of([&] { AudioWriter w(tmp("bad.opus"), AudioFormat::ogg_opus, 44100); }),
                 ErrorCode::invalid_argument, "44100", "Opus");
    expect_error(error_of([&] { AudioWriter w(tmp("bad.mp3"), AudioFormat::mp3, 96000); }),
                 ErrorCode::invalid_argument, "96000", "MP3");
    expect_error(error_of([&] { AudioWriter w(tmp("bad.wav"), AudioFormat::wav_pcm16, 0); }),
                 ErrorCode::invalid_argument, "sample rate");
    EXPECT_TRUE(leftovers(tmp("bad.")).empty());
}

TEST(audio_errors, ReadMissingFile) {
    const std::string path = tmp("does_not_exist.wav");
    expect_error(error_of([&] { read_audio_file(path); }), ErrorCode::io, path, "no such file");
}

TEST(audio_errors, ReadDirectory) {
    const std::string path = testing::tmp_dir();
    expect_error(error_of([&] { read_audio_file(path); }), ErrorCode::io, path, "directory");
}

TEST(audio_errors, ReadNotAudio) {
    const std::string path = tmp("not_audio.wav");
    write_bytes(path,
                std::vector<uint8_t>{'h', 'e', 'l', 'l', 'o', ' ', 'w', 'o', 'r', 'l', 'd', '\n'});
    expect_error(error_of([&] { read_audio_file(path); }), ErrorCode::format, path,
                 "not an audio file");
}

TEST(audio_errors, ReadEmptyFile) {
    const std::string path = tmp("zero_bytes.wav");
    write_bytes(path, {});
    expect_error(error_of([&] { read_audio_file(path); }), ErrorCode::format, path, "empty");
}

TEST(audio_errors, ReadAudioWithoutSamples) {
    const std::string path = tmp("no_samples.wav");
    write_audio_file(path, AudioFormat::wav_pcm16, {}, k_rate);
    EXPECT_EQ(sh("soxi -s " + path), "0");
    expect_error(error_of([&] { read_audio_file(path); }), ErrorCode::format, path, "no samples");
}

TEST(audio_errors, ReadTruncatedFlac) {
    const std::string path = tmp("truncated.flac");
    write_audio_file(path, AudioFormat::flac, sine(), k_rate);
    std::vector<uint8_t> b = read_bytes(path);
    b.resize(40);  // inside STREAMINFO
    write_bytes(path, b);
    EXPECT_THROW(read_audio_file(path), Error);
}

// ---------------------------------------------------------------------------------------
// Duration limit: long references are refused before they take memory.

// A canonical 44-byte header of mono 16-bit PCM WAV at 24 kHz; `data_bytes` and `riff_bytes`
// are the two length fields (0xFFFFFFFF in a stream whose length is unknown).
std::vector<uint8_t> wav16_header(uint32_t data_bytes, uint32_t riff_bytes) {
    std::vector<uint8_t> h;
    auto tag = [&](const char* t) { h.insert(h.end(), t, t + 4); };
    auto u32 = [&](uint32_t v) {
        for (int i = 0; i < 4; ++i) h.push_back(uint8_t(v >> (8 * i)));
    };
    auto u16 = [&](uint16_t v) {
        h.push_back(uint8_t(v));
        h.push_back(uint8_t(v >> 8));
    };
    tag("RIFF");
    u32(riff_bytes);
    tag("WAVE");
    tag("fmt ");
    u32(16);
    u16(1);  // PCM
    u16(1);  // mono
    u32(k_rate);
    u32(k_rate * 2);
    u16(2);
    u16(16);
    tag("data");
    u32(data_bytes);
    return h;
}

TEST(audio_limit, LongFileIsRefusedFromItsHeader) {
    // An hour of silence as a sparse file: the header's length alone refuses it (decoding it
    // would take 345 MB of floats).
    const std::string path = tmp("hour.wav");
    const uint32_t data_bytes = 3600u * k_rate * 2;
    write_bytes(path, wav16_header(data_bytes, data_bytes + 36));
    ASSERT_EQ(::truncate(path.c_str(), off_t(44) + data_bytes), 0);
    expect_error(error_of([&] { read_audio_file(path, 60.0); }), ErrorCode::invalid_argument, path,
                 "3600.00 s long (from its header); the limit is 60.00 s");
}

TEST(audio_limit, FileOfExactlyTheLimitIsRead) {
    const std::string path = tmp("limit_exact.wav");
    write_audio_file(path, AudioFormat::wav_pcm16, sine(), k_rate);  // 1.3 s
    EXPECT_EQ(read_audio_file(path, 1.3).samples.size(), k_n);
    expect_error(error_of([&] { read_audio_file(path, 1.2); }), ErrorCode::invalid_argument, path,
                 "1.30 s long (from its header); the limit is 1.20 s");
}

TEST(audio_limit, PipeOfUnknownLengthStopsAtTheLimit) {
    // A streamed WAV (length fields 0xFFFFFFFF) through a FIFO: its length is unknown until
    // the end, so decoding stops once it passes the limit.
    const std::string wav = tmp("stream.wav"), fifo = tmp("stream.fifo");
    std::vector<uint8_t> b = wav16_header(0xFFFFFFFFu, 0xFFFFFFFFu);
    b.resize(b.size() + 2 * k_rate * 2, 0);  // 2 s of silence
    write_bytes(wav, b);
    ::unlink(fifo.c_str());
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    // The writer runs in the background; it ends (SIGPIPE) when the reader stops early. Its
    // outputs go to /dev/null so that run_shell does not wait for it.
    ASSERT_EQ(run_shell("(cat " + shell_quote(wav) + " > " + shell_quote(fifo) +
                        " &) >/dev/null 2>&1 </dev/null")
                  .exit_code,
              0);
    expect_error(error_of([&] { read_audio_file(fifo, 1.0); }), ErrorCode::invalid_argument, fifo,
                 "longer than the limit of 1.00 s (decoding stopped there)");
    ::unlink(fifo.c_str());
}

}  // namespace
}  // namespace qwen3tts
