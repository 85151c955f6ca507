// speak|codes --text - --incremental: standard input written slowly, in pieces that split
// words and characters, gives the same file as the whole text with --text-layout streaming.
#include <gtest/gtest.h>

#include <fstream>

#include "support/test_support.hpp"

namespace qwen3tts {
namespace {

using testing::run_shell;
using testing::shell_quote;

std::string tmp(const std::string& name) {
    return testing::tmp_dir() + "/incremental_" + name;
}
std::string slurp(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), {});
}

std::string cli(const std::string& command) {
    return shell_quote(QWEN3TTS_CLI) + " " + command + " --model " +
           shell_quote(testing::model_dir("tiny-custom_voice")) +
           " --speaker ryan --seed 7 --max-frames 10 --text - ";
}

// A writer that sends the pieces with pauses between them; "你" (e4 bd a0) is cut in the
// middle, and the text ends with a line break (dropped, as --text - drops it).
const std::string kSlowWriter =
    "(printf 'Hello wor'; sleep 0.3; printf 'ld, \\344\\275'; sleep 0.3; printf '\\240 and "
    "goodbye.'; sleep 0.3; printf '\\n') | ";
const std::string kWhole = "printf 'Hello world, \\344\\275\\240 and goodbye.\\n' | ";

void expect_same_file(const std::string& command, const std::string& ext,
                      const std::string& extra = "") {
    const std::string inc = tmp(command + "_pieces." + ext), whole = tmp(command + "_whole." + ext);
    const auto a = run_shell(kSlowWriter + cli(command) + "--incremental " + extra + " --out " +
                             shell_quote(inc));
    ASSERT_EQ(a.exit_code, 0) << a.output;
    const auto b = run_shell(kWhole + cli(command) + "--text-layout streaming " + extra +
                             " --out " + shell_quote(whole));
    ASSERT_EQ(b.exit_code, 0) << b.output;
    EXPECT_FALSE(slurp(whole).empty());
    EXPECT_EQ(slurp(inc), slurp(whole)) << command;
}

TEST(CliIncremental, SpeakFromASlowWriterEqualsTheWholeTextStreamingLayout) {
    expect_same_file("speak", "wav");
}

TEST(CliIncremental, CodesFromASlowWriterEqualTheWholeTextStreamingLayout) {
    expect_same_file("codes", "npy");
}

TEST(CliIncremental, StreamingToStdoutEqualsTheWholeText) {
    const std::string inc = tmp("stdout_pieces.wav"), whole = tmp("stdout_whole.wav");
    // In a subshell, so that its stderr (the closing line) does not go into the file.
    const auto a = run_shell("(" + kSlowWriter + cli("speak") +
                             "--incremental --stream --quiet --out - > " + shell_quote(inc) + ")");
    ASSERT_EQ(a.exit_code, 0) << a.output;
    const auto b =
        run_shell("(" + kWhole + cli("speak") + "--text-layout streaming --quiet --out - > " +
                  shell_quote(whole) + ")");
    ASSERT_EQ(b.exit_code, 0) << b.output;
    EXPECT_EQ(slurp(inc).substr(0, 4), "RIFF");
    EXPECT_EQ(slurp(inc), slurp(whole));
}

TEST(CliIncremental, MisuseIsNamed) {
    auto r =
        run_shell(shell_quote(QWEN3TTS_CLI) + " codes --model " +
                  shell_quote(testing::model_dir("tiny-custom_voice")) +
                  " --speaker ryan --text hello --incremental --out " + shell_quote(tmp("x.npy")));
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.output.find("--incremental reads the text from standard input as it arrives: "
                            "give --text -"),
              std::string::npos)
        << r.output;
    r = run_shell("printf hi | " + cli("codes") +
                  "--incremental --text-layout non-streaming --out " + shell_quote(tmp("x.npy")));
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.output.find("--text-layout non-streaming needs the whole text first"),
              std::string::npos)
        << r.output;
    r = run_shell("printf 'ab\\377cd' | " + cli("codes") + "--incremental --out " +
                  shell_quote(tmp("x.npy")));
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.output.find("--text (standard input): invalid UTF-8 at byte offset 2 (byte 0xff)"),
              std::string::npos)
        << r.output;
}

}  // namespace
}  // namespace qwen3tts
