// Progress of long runs: on a terminal (a pseudo-terminal here) a line rewritten in place and
// erased before the closing line; with --quiet, or when stderr is no terminal, only the
// closing line. QWEN3TTS_PROGRESS_DELAY_MS=0 shows it from the start, so that the tiny test
// model (fast) exercises it without any timing assumption.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>

#include "support/test_support.hpp"

namespace qwen3tts {
namespace {

using testing::shell_quote;

std::string tmp(const std::string& name) {
    return testing::tmp_dir() + "/progress_" + name;
}

struct PtyRun {
    int exit_code = -1;
    std::string err;  // what the program wrote to its terminal stderr
};

// Runs the CLI with stderr on a pseudo-terminal (stdin and stdout on /dev/null).
PtyRun run_on_pty(const std::vector<std::string>& args) {
    PtyRun r;
    const int master = ::posix_openpt(O_RDWR | O_NOCTTY);
    if (master < 0 || ::grantpt(master) != 0 || ::unlockpt(master) != 0) return r;
    const std::string slave = ::ptsname(master);
    std::vector<std::string> argv_s = {QWEN3TTS_CLI};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : argv_s) argv.push_back(a.data());
    argv.push_back(nullptr);
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::setsid();
        const int tty = ::open(slave.c_str(), O_RDWR);
        const int null = ::open("/dev/null", O_RDWR);
        ::dup2(null, 0);
        ::dup2(null, 1);
        ::dup2(tty, 2);
        ::setenv("QWEN3TTS_PROGRESS_DELAY_MS", "0", 1);
        ::execv(argv[0], argv.data());
        ::_exit(127);
    }
    char buf[4096];
    for (;;) {
        const ssize_t n = ::read(master, buf, sizeof buf);
        if (n > 0) {
            r.err.append(buf, size_t(n));
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        break;  // EIO: every slave descriptor is closed (the child exited)
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    ::close(master);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return r;
}

std::vector<std::string> speak_args(const std::string& out, bool quiet) {
    std::vector<std::string> a = {
        "speak",        "--model", testing::model_dir("tiny-custom_voice"),
        "--speaker",    "ryan",    "--greedy",
        "--max-frames", "40",      "--text",
        "Hello there.", "--out",   tmp(out)};
    if (quiet) a.push_back("--quiet");
    return a;
}

// The terminal turns "\n" into "\r\n".
std::string closing_line(const std::string& err) {
    const auto start = err.rfind("qwen3tts: ");
    return start == std::string::npos ? "" : err.substr(start);
}

TEST(CliProgress, ATerminalSeesALineRewrittenInPlaceThenErased) {
    const auto r = run_on_pty(speak_args("tty.wav", false));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err.rfind("\rspeaking: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(" frames, "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(" s of audio, real-time factor "), std::string::npos) << r.err;
    // Erased before the closing line, which then stands alone.
    const auto closing = r.err.rfind("qwen3tts: ");
    ASSERT_NE(closing, std::string::npos) << r.err;
    EXPECT_EQ(r.err.substr(closing - 4, 4), "\r\033[K") << r.err;
    EXPECT_NE(closing_line(r.err).find("real-time factor"), std::string::npos);
}

TEST(CliProgress, CodesAndEncodeShowItToo) {
    const auto codes =
        run_on_pty({"codes", "--model", testing::model_dir("tiny-custom_voice"), "--speaker",
                    "ryan", "--max-frames", "20", "--text", "Hi.", "--out", tmp("c.npy")});
    ASSERT_EQ(codes.exit_code, 0) << codes.err;
    EXPECT_EQ(codes.err.rfind("\rgenerating: ", 0), 0u) << codes.err;
    const auto wav = run_on_pty(speak_args("ref.wav", true));
    ASSERT_EQ(wav.exit_code, 0) << wav.err;
    const auto enc = run_on_pty({"encode", "--model", testing::model_dir("tiny-base"), "--audio",
                                 tmp("ref.wav"), "--out", tmp("e.npy")});
    ASSERT_EQ(enc.exit_code, 0) << enc.err;
    EXPECT_EQ(enc.err.rfind("\rencoding: ", 0), 0u) << enc.err;
    EXPECT_NE(enc.err.find(" s elapsed"), std::string::npos) << enc.err;
}

TEST(CliProgress, QuietSilencesIt) {
    const auto r = run_on_pty(speak_args("quiet.wav", true));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err.rfind("qwen3tts: ", 0), 0u) << r.err;
    EXPECT_EQ(r.err.find('\r'), r.err.size() - 2) << "only the closing line's \\r\\n: " << r.err;
}

TEST(CliProgress, StderrThatIsNoTerminalGetsOnlyTheClosingLine) {
    const std::string err = tmp("pipe.err");
    std::string cmd = "QWEN3TTS_PROGRESS_DELAY_MS=0 " + shell_quote(QWEN3TTS_CLI);
    for (const auto& a : speak_args("pipe.wav", false)) cmd += " " + shell_quote(a);
    const auto r = testing::run_shell("{ " + cmd + " 2>" + shell_quote(err) + "; }");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    std::ifstream f(err);
    const std::string text(std::istreambuf_iterator<char>(f), {});
    EXPECT_EQ(text.rfind("qwen3tts: ", 0), 0u) << text;
    EXPECT_EQ(text.find('\n'), text.size() - 1) << text;
    EXPECT_EQ(text.find('\r'), std::string::npos) << text;
}

}  // namespace
}  // namespace qwen3tts
