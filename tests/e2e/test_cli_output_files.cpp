// What `--out` does to the thing it names, through the CLI's `speak`, `codes` and `decode`:
// devices and FIFOs are written into, never replaced; a symlink stays a symlink and its target
// gets the content; a replaced file keeps its mode; a 250-byte name works; an interrupted run
// (SIGINT, SIGTERM, SIGHUP) leaves no temporary file and the target as it was.
#include <fcntl.h>
#include <glob.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "support/test_support.hpp"

extern char** environ;

namespace qwen3tts {
namespace {

using testing::run_cli;
using testing::run_shell;
using testing::shell_quote;

const std::string kModel = testing::model_dir("tiny-custom_voice");
const std::string kSynth = " --model " + shell_quote(kModel) +
                           " --speaker ryan --language english --greedy --max-frames 10 "
                           "--text 'Hello world, this is a test.'";
const std::string kSpeak = "speak" + kSynth;
const std::string kCodes = "codes" + kSynth;
const std::string kDecode =
    "decode --model " + shell_quote(kModel) + " --codes " +
    shell_quote(testing::golden_dir("tiny-custom_voice") + "/codec_rand_codes.npy");
constexpr long kWavBytes = 44 + 2 * 19200;     // 10 frames of PCM16 at 24 kHz
constexpr long kDecodeBytes = 44 + 2 * 38400;  // the 20 frames of codec_rand_codes.npy
constexpr long kCodesBytes = 128 + 10 * 16 * 8;

// A fresh directory per test.
std::string dir_for(const std::string& name) {
    const std::string dir = testing::tmp_dir() + "/outfiles_" + name;
    run_shell("rm -rf " + shell_quote(dir) + " && mkdir -p " + shell_quote(dir));
    return dir;
}

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

mode_t lmode(const std::string& path) {
    struct stat st {};
    return ::lstat(path.c_str(), &st) == 0 ? st.st_mode : 0;
}

long size_of(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 ? long(st.st_size) : -1;
}

std::vector<std::string> matching(const std::string& pattern) {
    std::vector<std::string> names;
    glob_t g{};
    if (::glob(pattern.c_str(), GLOB_PERIOD, nullptr, &g) == 0)
        for (size_t i = 0; i < g.gl_pathc; ++i) names.push_back(g.gl_pathv[i]);
    ::globfree(&g);
    return names;
}

// Entries of `dir` (hidden ones too) other than "." and "..".
std::vector<std::string> entries(const std::string& dir) {
    std::vector<std::string> names;
    for (const auto& p : matching(dir + "/*"))
        if (p != dir + "/." && p != dir + "/..") names.push_back(p);
    return names;
}

// The device and stdout tests write through private stand-ins (a device node made like
// /dev/null, a link like /dev/stdout) where they can: should the fix regress, a test run as
// root must not replace the machine's /dev/null or /dev/stdout with a regular file.
TEST(CliOutputFiles, CharacterDeviceStaysACharacterDevice) {
    const std::string dir = dir_for("chardev");
    std::string null_dev = dir + "/null";
    if (::mknod(null_dev.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0)
        null_dev = "/dev/null";  // not root: it cannot be replaced anyway
    for (const std::string& cmd : {kSpeak + " --format wav", kCodes, kDecode + " --format wav"}) {
        const auto r = run_cli(cmd + " --out " + shell_quote(null_dev));
        EXPECT_EQ(r.exit_code, 0) << cmd << ": " << r.output;
        EXPECT_TRUE(S_ISCHR(lmode(null_dev))) << cmd;
    }
    EXPECT_EQ(slurp(null_dev), "");
}

TEST(CliOutputFiles, StdoutLinkIsWrittenThrough) {
    const std::string dir = dir_for("stdout");
    const std::string link = dir + "/stdout";  // what /dev/stdout is
    ASSERT_EQ(::symlink("/proc/self/fd/1", link.c_str()), 0);
    for (const std::string& out : {link, std::string("/dev/fd/1")}) {
        const auto r = run_shell(shell_quote(QWEN3TTS_CLI) + " " + kSpeak + " --format wav --out " +
                                 shell_quote(out) + " 2>/dev/null | wc -c");
        EXPECT_EQ(r.exit_code, 0) << out << ": " << r.output;
        EXPECT_EQ(r.output, std::to_string(kWavBytes) + "\n") << out;
    }
    EXPECT_TRUE(S_ISLNK(lmode(link)));
    EXPECT_EQ(entries(dir).size(), 1u);
}

// Reads a FIFO opened before the writer exists, without ever blocking: a writer that never
// opens it (the FIFO replaced by a file) must fail the test, not hang it.
class FifoReader {
  public:
    explicit FifoReader(const std::string& path)
        : fd_(::open(path.c_str(), O_RDONLY | O_NONBLOCK)), thread_([this] { run(); }) {}
    std::string finish() {
        done_ = true;
        thread_.join();
        if (fd_ >= 0) ::close(fd_);
        return bytes_;
    }

  private:
    void run() {
        char buf[65536];
        while (fd_ >= 0) {
            const bool writer_done = done_;  // read before draining, so nothing is missed
            const ssize_t n = ::read(fd_, buf, sizeof buf);
            if (n > 0) {
                bytes_.append(buf, size_t(n));
            } else if (writer_done && (n == 0 || errno == EAGAIN)) {
                break;
            } else {
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
            }
        }
    }
    int fd_;
    std::atomic<bool> done_{false};
    std::string bytes_;
    std::thread thread_;
};

TEST(CliOutputFiles, FifoGetsTheBytesAndStaysAFifo) {
    const std::string dir = dir_for("fifo");
    const std::string fifo = dir + "/out.wav";
    for (const std::string& cmd : {kSpeak, kDecode}) {
        ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
        FifoReader reader(fifo);
        const auto r = run_cli(cmd + " --out " + shell_quote(fifo));
        const std::string got = reader.finish();
        EXPECT_EQ(r.exit_code, 0) << cmd << ": " << r.output;
        EXPECT_TRUE(S_ISFIFO(lmode(fifo))) << cmd;
        EXPECT_EQ(long(got.size()), cmd == kSpeak ? kWavBytes : kDecodeBytes) << cmd;
        EXPECT_EQ(got.substr(0, 4), "RIFF") << cmd;
        EXPECT_EQ(entries(dir), std::vector<std::string>{fifo}) << cmd;
        ::unlink(fifo.c_str());
    }
}

TEST(CliOutputFiles, SymlinkStaysASymlinkAndItsTargetGetsTheContent) {
    const std::string dir = dir_for("symlink");
    ::mkdir((dir + "/data").c_str(), 0755);
    struct Case {
        std::string cmd, link, target, link_text;
        long size;
    } cases[] = {
        {kSpeak, dir + "/link.wav", dir + "/data/real.wav", "data/real.wav", kWavBytes},
        {kCodes, dir + "/link.npy", dir + "/data/real.npy", "data/real.npy", kCodesBytes},
        // A dangling link: its target is created.
        {kDecode, dir + "/dangling.wav", dir + "/data/new.wav", "data/new.wav", kDecodeBytes},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.link);
        if (c.link_text != "data/new.wav") std::ofstream(c.target) << "old";
        ASSERT_EQ(::symlink(c.link_text.c_str(), c.link.c_str()), 0);
        const auto r = run_cli(c.cmd + " --out " + shell_quote(c.link));
        ASSERT_EQ(r.exit_code, 0) << r.output;
        EXPECT_TRUE(S_ISLNK(lmode(c.link)));
        char buf[256];
        const ssize_t n = ::readlink(c.link.c_str(), buf, sizeof buf);
        EXPECT_EQ(std::string(buf, size_t(std::max<ssize_t>(n, 0))), c.link_text);
        EXPECT_TRUE(S_ISREG(lmode(c.target)));
        EXPECT_EQ(size_of(c.target), c.size);
    }
    EXPECT_TRUE(matching(dir + "/data/.*qwen3tts-*").empty());
    EXPECT_TRUE(matching(dir + "/data/*qwen3tts-*").empty());
}

TEST(CliOutputFiles, ReplacedFileKeepsItsMode) {
    const std::string dir = dir_for("mode");
    for (const auto& [cmd, name] : std::vector<std::pair<std::string, std::string>>{
             {kSpeak, "/a.wav"}, {kCodes, "/a.npy"}, {kDecode, "/b.flac"}}) {
        const std::string out = dir + name;
        std::ofstream(out) << "old";
        ASSERT_EQ(::chmod(out.c_str(), 0640), 0);
        const auto r = run_cli(cmd + " --out " + shell_quote(out));
        ASSERT_EQ(r.exit_code, 0) << cmd << ": " << r.output;
        EXPECT_EQ(lmode(out) & 07777, mode_t(0640)) << cmd;
        EXPECT_GT(size_of(out), 100) << cmd;
    }
}

TEST(CliOutputFiles, LongFileNameWorks) {
    const std::string dir = dir_for("long_name");
    struct {
        std::string cmd, ext;
        long size;
    } cases[] = {{kSpeak, ".wav", kWavBytes},
                 {kCodes, ".npy", kCodesBytes},
                 {kDecode, ".wav", kDecodeBytes}};
    for (const auto& [cmd, ext, size] : cases) {
        const std::string out = dir + "/" + std::string(250 - ext.size(), 'n') + ext;
        const auto r = run_cli(cmd + " --out " + shell_quote(out));
        ASSERT_EQ(r.exit_code, 0) << cmd << ": " << r.output;
        EXPECT_EQ(size_of(out), size) << cmd;
        EXPECT_EQ(entries(dir).size(), 1u) << cmd;  // no temporary left next to it
        ::unlink(out.c_str());
    }
}

// Starts the CLI with default signal dispositions (a background job may inherit SIGINT
// ignored), stdout and stderr to /dev/null.
pid_t spawn_cli(const std::vector<std::string>& args) {
    std::vector<std::string> all = {QWEN3TTS_CLI};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t defaults, none;
    sigemptyset(&defaults);
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&defaults, sig);
    sigemptyset(&none);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    posix_spawn_file_actions_t files;
    posix_spawn_file_actions_init(&files);
    posix_spawn_file_actions_addopen(&files, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&files, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid = -1;
    const int rc = ::posix_spawn(&pid, QWEN3TTS_CLI, &files, &attr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&files);
    posix_spawnattr_destroy(&attr);
    return rc == 0 ? pid : -1;
}

TEST(CliOutputFiles, SignalLeavesNoTemporaryAndTheTargetAsItWas) {
    const std::string dir = dir_for("signals");
    // Long text on the reference kernels: many seconds of work once the output is open.
    std::string text;
    for (int i = 0; i < 100; ++i) text += "Hello world, this is a test. ";
    for (int sig : {SIGTERM, SIGINT, SIGHUP}) {
        SCOPED_TRACE(strsignal(sig));
        const std::string out = dir + "/out" + std::to_string(sig) + ".wav";
        const bool existed = sig == SIGINT;
        if (existed) std::ofstream(out) << "old";
        const pid_t pid = spawn_cli({"speak", "--model", kModel, "--speaker", "ryan", "--language",
                                     "english", "--kernels", "reference", "--max-frames", "2000",
                                     "--stream", "--text", text, "--out", out});
        ASSERT_GT(pid, 0);
        // Wait until the temporary exists (the model is loaded and synthesis runs).
        bool started = false;
        for (int i = 0; i < 6000 && !started; ++i) {
            started = !matching(out + ".qwen3tts-*").empty();
            if (!started) std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        if (!started) {
            ::kill(pid, SIGKILL);
            ::waitpid(pid, nullptr, 0);
            FAIL() << "no temporary appeared";
        }
        ASSERT_EQ(::kill(pid, sig), 0);
        int status = 0;
        ASSERT_EQ(::waitpid(pid, &status, 0), pid);
        ASSERT_TRUE(WIFSIGNALED(status)) << "exit status " << status;
        EXPECT_EQ(WTERMSIG(status), sig);
        EXPECT_TRUE(matching(out + ".qwen3tts-*").empty());
        if (existed)
            EXPECT_EQ(slurp(out), "old");
        else
            EXPECT_EQ(lmode(out), mode_t(0));
    }
    EXPECT_EQ(entries(dir).size(), 1u);  // only the file that existed before
}

}  // namespace
}  // namespace qwen3tts
