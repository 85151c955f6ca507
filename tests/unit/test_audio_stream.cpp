// Streaming to stdout ("-"): a child process writes the test sine chunk by chunk into a pipe,
// as `qwen3tts speak -o - | player` would. The parent checks that the first chunk arrives
// before the rest is written, then hands the whole stream to sox through a pipe.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "audio/audio.hpp"
#include "core/error.hpp"
#include "support/test_support.hpp"

namespace qwen3tts {
namespace {

constexpr double k_pi = 3.14159265358979323846;
constexpr int k_rate = 24000;
constexpr size_t k_n = 31200;
constexpr size_t k_chunk = 1920;

std::vector<float> sine() {
    std::vector<float> x(k_n);
    for (size_t i = 0; i < k_n; ++i)
        x[i] = float(0.5 * std::sin(2 * k_pi * 440.0 * double(i) / k_rate));
    return x;
}

std::string tmp(const std::string& name) {
    const std::string dir = testing::tmp_dir() + "/audio_stream";
    ::mkdir(dir.c_str(), 0755);
    return dir + "/" + name;
}

void write_bytes(const std::string& path, const std::vector<uint8_t>& b) {
    std::ofstream f(path, std::ios::binary);
    f.write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
}

std::vector<uint8_t> read_bytes(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

uint32_t u32_at(const std::vector<uint8_t>& b, size_t at) {
    return uint32_t(b[at]) | uint32_t(b[at + 1]) << 8 | uint32_t(b[at + 2]) << 16 |
           uint32_t(b[at + 3]) << 24;
}

// In the child: stdout is `out_fd`; writes one chunk, waits for the parent's go, writes the
// rest. Never returns.
[[noreturn]] void child_writer(int out_fd, int go_fd, AudioFormat format) {
    int rc = 0;
    try {
        if (::dup2(out_fd, STDOUT_FILENO) < 0) ::_exit(3);
        const std::vector<float> x = sine();
        AudioWriter w("-", format, k_rate);
        w.write(x.data(), k_chunk);
        char go = 0;
        if (go_fd >= 0 && ::read(go_fd, &go, 1) != 1) ::_exit(4);
        for (size_t at = k_chunk; at < x.size(); at += k_chunk)
            w.write(x.data() + at, std::min(k_chunk, x.size() - at));
        w.finish();
    } catch (...) {
        rc = 2;
    }
    ::_exit(rc);
}

struct Streamed {
    std::vector<uint8_t> before_go;  // bytes available after the first chunk
    std::vector<uint8_t> all;
    int exit_code = -1;
};

// Runs child_writer into a pipe and collects what it writes.
Streamed stream_through_pipe(AudioFormat format, size_t wait_for_bytes) {
    int data[2], go[2];
    EXPECT_EQ(::pipe(data), 0);
    EXPECT_EQ(::pipe(go), 0);
    std::fflush(stdout);
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::close(data[0]);
        ::close(go[1]);
        child_writer(data[1], go[0], format);
    }
    ::close(data[1]);
    ::close(go[0]);
    Streamed s;
    uint8_t buf[65536];
    // Before the go signal: read until the expected bytes came (or 10 s passed).
    while (s.before_go.size() < wait_for_bytes) {
        pollfd p{data[0], POLLIN, 0};
        if (::poll(&p, 1, 10000) <= 0) break;
        const ssize_t k = ::read(data[0], buf, sizeof buf);
        if (k <= 0) break;
        s.before_go.insert(s.before_go.end(), buf, buf + k);
    }
    const char g = 'g';
    EXPECT_EQ(::write(go[1], &g, 1), 1);
    ::close(go[1]);
    s.all = s.before_go;
    for (;;) {
        const ssize_t k = ::read(data[0], buf, sizeof buf);
        if (k <= 0) break;
        s.all.insert(s.all.end(), buf, buf + k);
    }
    ::close(data[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    s.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return s;
}

// Decodes bytes with sox reading from a pipe (stdin), as a player would.
std::vector<float> sox_decode_stdin(const std::vector<uint8_t>& bytes, const std::string& type,
                                    const std::string& name) {
    const std::string in = tmp(name), out = tmp(name + ".f32");
    write_bytes(in, bytes);
    const testing::CommandResult r =
        testing::run_shell("cat " + in + " | sox -t " + type + " - -t f32 " + out);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(r.output.find("FAIL"), std::string::npos) << r.output;
    const std::vector<uint8_t> b = read_bytes(out);
    std::vector<float> x(b.size() / 4);
    std::memcpy(x.data(), b.data(), x.size() * 4);
    return x;
}

double max_abs_diff(const std::vector<float>& a, const std::vector<float>& b) {
    double m = 0;
    for (size_t i = 0; i < std::min(a.size(), b.size()); ++i)
        m = std::max(m, std::fabs(double(a[i]) - double(b[i])));
    return m;
}

TEST(audio_stdout, WavChunkArrivesAtOnceAndSoxReadsThePipe) {
    const Streamed s = stream_through_pipe(AudioFormat::wav_pcm16, 44 + 2 * k_chunk);
    EXPECT_EQ(s.exit_code, 0);
    EXPECT_EQ(s.before_go.size(), 44 + 2 * k_chunk);  // header + first chunk, nothing held back
    ASSERT_EQ(s.all.size(), 44 + 2 * k_n);
    EXPECT_EQ(u32_at(s.all, 4), 0xFFFFFFFFu);   // RIFF size unknown
    EXPECT_EQ(u32_at(s.all, 40), 0xFFFFFFFFu);  // data size unknown
    const std::vector<float> got = sox_decode_stdin(s.all, "wav", "pipe.wav");
    ASSERT_EQ(got.size(), k_n);
    EXPECT_LE(max_abs_diff(got, sine()), 1.0 / 32768 + 1e-9);
}

TEST(audio_stdout, WavFloatThroughPipe) {
    const Streamed s = stream_through_pipe(AudioFormat::wav_f32, 58 + 4 * k_chunk);
    EXPECT_EQ(s.exit_code, 0);
    EXPECT_EQ(s.before_go.size(), 58 + 4 * k_chunk);
    const std::vector<float> got = sox_decode_stdin(s.all, "wav", "pipe_f32.wav");
    ASSERT_EQ(got.size(), k_n);
    EXPECT_LE(max_abs_diff(got, sine()), 1e-7);
}

TEST(audio_stdout, RawPcmThroughPipe) {
    const Streamed s = stream_through_pipe(AudioFormat::raw_pcm16, 2 * k_chunk);
    EXPECT_EQ(s.exit_code, 0);
    EXPECT_EQ(s.before_go.size(), 2 * k_chunk);
    EXPECT_EQ(s.all.size(), 2 * k_n);
}

TEST(audio_stdout, FlacThroughPipeDecodesCleanly) {
    // FLAC's first audio frame needs 4096 samples; after one chunk only the stream header
    // ("fLaC" + STREAMINFO + VORBIS_COMMENT) has gone out.
    const Streamed s = stream_through_pipe(AudioFormat::flac, 4);
    EXPECT_EQ(s.exit_code, 0);
    ASSERT_GE(s.before_go.size(), 4u);
    EXPECT_EQ(std::string(s.before_go.begin(), s.before_go.begin() + 4), "fLaC");
    // No STREAMINFO rewrite appended at the end (sox would report lost sync).
    const std::vector<float> got = sox_decode_stdin(s.all, "flac", "pipe.flac");
    ASSERT_EQ(got.size(), k_n);
    EXPECT_LE(max_abs_diff(got, sine()), 1.0 / 32768 + 1e-9);
}

TEST(audio_stdout, Mp3ThroughPipe) {
    const Streamed s = stream_through_pipe(AudioFormat::mp3, 1);
    EXPECT_EQ(s.exit_code, 0);
    EXPECT_FALSE(s.before_go.empty());
    const std::vector<float> got = sox_decode_stdin(s.all, "mp3", "pipe.mp3");
    // No gapless tag on a pipe: delay and padding stay, whole 576-sample frames.
    EXPECT_EQ(got.size() % 576, 0u);
    EXPECT_GE(got.size(), k_n);
    EXPECT_LE(got.size(), k_n + 3 * 576);
    // Constant bit rate, so that readers estimate the length right without a Xing tag: every
    // frame header has the same bitrate index (MPEG-2 layer III, 64 kbit/s = index 8).
    EXPECT_EQ(s.all[0], 0xFF);
    EXPECT_EQ(s.all[1], 0xF3);
    EXPECT_EQ(s.all[2] >> 4, 8);
    const std::string path = tmp("pipe_read.mp3");
    write_bytes(path, s.all);
    const Audio a = read_audio_file(path);
    EXPECT_EQ(a.sample_rate, k_rate);
    // libsndfile/mpg123 read all 57 frames; sox (libmad) drops one frame here (56).
    EXPECT_NEAR(double(a.samples.size()), double(got.size()), 576.0);
    EXPECT_EQ(a.samples.size() % 576, 0u);
    EXPECT_GE(a.samples.size(), k_n);
}

TEST(audio_stdout, Mp3ToCallbackMatchesPipe) {
    std::vector<uint8_t> bytes;
    AudioWriter w(
        [&](const void* p, size_t n) {
            bytes.insert(bytes.end(), static_cast<const uint8_t*>(p),
                         static_cast<const uint8_t*>(p) + n);
        },
        AudioFormat::mp3, k_rate);
    const std::vector<float> x = sine();
    for (size_t at = 0; at < x.size(); at += k_chunk)
        w.write(x.data() + at, std::min(k_chunk, x.size() - at));
    w.finish();
    const std::vector<float> got = sox_decode_stdin(bytes, "mp3", "callback.mp3");
    EXPECT_GE(got.size(), k_n);
    EXPECT_LE(got.size(), k_n + 3 * 576);
}

TEST(audio_stdout, OpusThroughPipe) {
    const Streamed s = stream_through_pipe(AudioFormat::ogg_opus, 1);
    EXPECT_EQ(s.exit_code, 0);
    ASSERT_GE(s.before_go.size(), 4u);
    EXPECT_EQ(std::string(s.before_go.begin(), s.before_go.begin() + 4), "OggS");
    const std::string path = tmp("pipe.opus");
    write_bytes(path, s.all);
    const Audio a = read_audio_file(path);
    EXPECT_EQ(a.sample_rate, k_rate);
    EXPECT_EQ(a.samples.size(), k_n);
}

TEST(audio_stdout, NpyThroughPipeIsWrittenAtFinish) {
    const Streamed s = stream_through_pipe(AudioFormat::npy_f32, 0);
    EXPECT_EQ(s.exit_code, 0);
    const std::string path = tmp("pipe.npy");
    write_bytes(path, s.all);
    const NpyArray a = read_npy(path);
    EXPECT_EQ(a.shape, std::vector<int64_t>{int64_t(k_n)});
    EXPECT_EQ(a.to_f32(), sine());
}

TEST(audio_stdout, RedirectedToAFileGetsRealSizes) {
    // `qwen3tts speak -o - > out.wav`: stdout is a regular file, so the header is patched.
    const std::string path = tmp("redirected.wav");
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ASSERT_GE(fd, 0);
    std::fflush(stdout);
    const pid_t pid = ::fork();
    if (pid == 0) child_writer(fd, -1, AudioFormat::wav_pcm16);
    ::close(fd);
    int status = 0;
    ::waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
    const std::vector<uint8_t> b = read_bytes(path);
    ASSERT_EQ(b.size(), 44 + 2 * k_n);
    EXPECT_EQ(u32_at(b, 4), 36 + 2 * k_n);
    EXPECT_EQ(u32_at(b, 40), 2 * k_n);
    const testing::CommandResult r = testing::run_shell("soxi -s " + path);
    EXPECT_EQ(r.output, std::to_string(k_n) + "\n");
}

}  // namespace
}  // namespace qwen3tts
