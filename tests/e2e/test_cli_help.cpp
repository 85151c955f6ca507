// The CLI teaches itself: `qwen3tts help`, `help CMD` == `CMD --help` == `CMD -h` on stdout
// with exit 0, every option of every command with a description, --version with the build
// facts, and --opt=value meaning the same as --opt value.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

#include "qwen3tts/qwen3tts.hpp"
#include "support/test_support.hpp"

namespace qwen3tts {
namespace {

using testing::run_shell;
using testing::shell_quote;

struct Split {
    int exit_code = -1;
    std::string out, err;
};

std::string slurp(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), {});
}

// Runs the CLI with stdout and stderr kept apart (files named after the test: ctest runs
// tests in parallel).
Split run_split(const std::string& args) {
    const std::string stem = testing::tmp_dir() + "/help_" +
                             ::testing::UnitTest::GetInstance()->current_test_info()->name();
    const std::string out = stem + ".stdout", err = stem + ".stderr";
    // The group keeps run_shell's trailing 2>&1 from merging the two.
    const auto r = run_shell("{ " + shell_quote(QWEN3TTS_CLI) + " " + args + " >" +
                             shell_quote(out) + " 2>" + shell_quote(err) + "; }");
    return {r.exit_code, slurp(out), slurp(err)};
}

// What each command must take (the user-facing contract; the help is generated from the
// CLI's own table, so this checks that table against the documented options).
const std::map<std::string, std::vector<std::string>> kOptions = [] {
    const std::vector<std::string> synthesis = {"model",
                                                "pretokenizer",
                                                "no-mmap",
                                                "text",
                                                "language",
                                                "speaker",
                                                "instruct",
                                                "text-layout",
                                                "voice",
                                                "ref-audio",
                                                "ref-text",
                                                "x-vector-only",
                                                "seed",
                                                "greedy",
                                                "temperature",
                                                "top-k",
                                                "top-p",
                                                "repetition-penalty",
                                                "subtalker-temperature",
                                                "subtalker-top-k",
                                                "subtalker-top-p",
                                                "max-frames",
                                                "threads",
                                                "kernels",
                                                "oversubscribe"};
    auto with = [&](std::vector<std::string> extra) {
        extra.insert(extra.begin(), synthesis.begin(), synthesis.end());
        return extra;
    };
    return std::map<std::string, std::vector<std::string>>{
        {"speak", with({"min-frames", "codec-conv", "out", "format", "codec-decode",
                        "codec-overlap", "stream", "quiet"})},
        {"codes", with({"min-frames", "out", "quiet"})},
        {"decode", {"model", "codec-conv", "codes", "out", "format", "codec-decode", "threads"}},
        {"voice",
         {"model", "pretokenizer", "ref-audio", "ref-text", "x-vector-only", "max-seconds", "out",
          "quiet"}},
        {"encode", {"model", "audio", "max-seconds", "threads", "out", "quiet"}},
        {"info", {"model", "pretokenizer"}},
        {"bench", with({"codec-conv", "codec-overlap", "frames", "runs", "no-codec", "json"})},
        {"pull", {"include", "quiet"}},
        {"list", {}},
        {"serve",
         {"model", "pretokenizer", "quant", "codec-conv", "no-mmap", "host", "port", "api-key",
          "max-batch", "max-queue", "voices-dir", "max-input-chars", "max-body-mb",
          "max-body-memory-mb", "stream-idle-timeout", "shutdown-grace", "threads"}},
        {"help", {}},
    };
}();

TEST(CliHelp, OverviewListsEveryCommandOnStdout) {
    for (const std::string args : {"--help", "-h", "help"}) {
        const auto r = run_split(args);
        EXPECT_EQ(r.exit_code, 0) << args;
        EXPECT_EQ(r.err, "") << args;
        for (const auto& [cmd, options] : kOptions)
            EXPECT_NE(r.out.find("\n  " + cmd + " "), std::string::npos) << args << ": " << cmd;
    }
}

TEST(CliHelp, NoCommandIsAUsageErrorOnStderr) {
    const auto r = run_split("");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find("usage: qwen3tts <command>"), std::string::npos) << r.err;
    const auto u = run_split("sing");
    EXPECT_EQ(u.exit_code, 2);
    EXPECT_NE(u.err.find("unknown command 'sing' (`qwen3tts help` lists them)"), std::string::npos)
        << u.err;
}

TEST(CliHelp, EveryCommandHelpListsEveryOptionWithADescription) {
    for (const auto& [cmd, options] : kOptions) {
        const auto help = run_split("help " + cmd);
        EXPECT_EQ(help.exit_code, 0) << cmd;
        EXPECT_EQ(help.err, "") << cmd;
        EXPECT_EQ(help.out.rfind("usage: qwen3tts " + cmd, 0), 0u) << help.out;
        for (const std::string flag : {"--help", "-h"}) {
            const auto same = run_split(cmd + " " + flag);
            EXPECT_EQ(same.exit_code, 0) << cmd << " " << flag;
            EXPECT_EQ(same.out, help.out) << cmd << " " << flag;
            EXPECT_EQ(same.err, "") << cmd << " " << flag;
        }
        for (const auto& o : options) {
            // "  --name VALUE   description" (or "-q, --name"), a long label on its own line.
            const auto at = help.out.find(" --" + o + " ");
            const auto at_eol = help.out.find(" --" + o + "\n");
            ASSERT_TRUE(at != std::string::npos || at_eol != std::string::npos)
                << cmd << " --help lacks --" << o << ":\n"
                << help.out;
        }
        std::istringstream lines(help.out);
        for (std::string line; std::getline(lines, line);)
            EXPECT_LE(line.size(), 100u) << cmd << ": " << line;
    }
}

TEST(CliHelp, DefaultsAreTheRealOnes) {
    const auto r = run_split("help speak");
    EXPECT_NE(r.out.find("(default: Qwen/Qwen3-TTS-12Hz-0.6B-CustomVoice)"), std::string::npos);
    EXPECT_NE(r.out.find("(default: the model's, generation_config.json)"), std::string::npos);
    EXPECT_NE(r.out.find("(default: random, printed in the closing line)"), std::string::npos);
    EXPECT_NE(r.out.find("(default: " + LoadOptions().pretokenizer + ")"), std::string::npos);
    const auto v = run_split("help voice");
    EXPECT_NE(v.out.find("(default: 60)"), std::string::npos) << v.out;
}

TEST(CliHelp, HelpOfAnUnknownCommandIsAnError) {
    const auto r = run_split("help sing");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("unknown command 'sing'"), std::string::npos) << r.err;
}

TEST(CliVersion, PrintsVersionCommitSimdAndBuildType) {
    const BuildInfo b = build_info();
    for (const std::string flag : {"--version", "-V"}) {
        const auto r = run_split(flag);
        EXPECT_EQ(r.exit_code, 0);
        EXPECT_EQ(r.err, "");
        EXPECT_EQ(r.out, "qwen3tts " + b.version + "\ngit commit  " + b.git_commit +
                             "\nsimd        " + b.simd + " (detected on this CPU)\nbuild type  " +
                             b.build_type + "\n");
    }
}

// A level lowered by QWEN3TTS_ISA is not "detected": the line says where it comes from.
TEST(CliVersion, SaysWhenQwen3ttsIsaSetTheLevel) {
    const std::string out = testing::tmp_dir() + "/help_version_isa.stdout";
    const auto r = run_shell("{ QWEN3TTS_ISA=generic " + shell_quote(QWEN3TTS_CLI) +
                             " --version >" + shell_quote(out) + "; }");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(slurp(out).find("\nsimd        generic (set by QWEN3TTS_ISA)\n"), std::string::npos)
        << slurp(out);
}

TEST(CliVersion, AnUnknownQwen3ttsIsaIsAnErrorNotACrash) {
    const std::string err = testing::tmp_dir() + "/help_version_bad_isa.stderr";
    const auto r = run_shell("{ QWEN3TTS_ISA=avx9000 " + shell_quote(QWEN3TTS_CLI) +
                             " --version 2>" + shell_quote(err) + "; }");
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_EQ(slurp(err),
              "qwen3tts --version: error: QWEN3TTS_ISA=avx9000 is not a known level (use generic, "
              "avx2 or avx512)\n");
}

std::string codes_path(const std::string& name) {
    return testing::tmp_dir() + "/help_" + name + ".npy";
}

TEST(CliArgs, EqualsFormMeansTheSameAsTheSpacedForm) {
    const std::string model = shell_quote(testing::model_dir("tiny-custom_voice"));
    const auto a = run_split("codes --model " + model +
                             " --speaker ryan --language english --seed 7 --temperature 0.7 "
                             "--max-frames 6 --text 'Hello there.' --out " +
                             shell_quote(codes_path("spaced")));
    const auto b = run_split("codes --model=" + model +
                             " --speaker=ryan --language=english --seed=7 --temperature=0.7 "
                             "--max-frames=6 --greedy=false '--text=Hello there.' --out=" +
                             shell_quote(codes_path("equals")));
    ASSERT_EQ(a.exit_code, 0) << a.err;
    ASSERT_EQ(b.exit_code, 0) << b.err;
    EXPECT_EQ(slurp(codes_path("spaced")), slurp(codes_path("equals")));
    EXPECT_EQ(a.out, "");  // results go to files, messages to stderr
    const auto greedy = run_split("codes --model " + model +
                                  " --speaker ryan --max-frames 6 --text 'Hello there.' "
                                  "--greedy --out " +
                                  shell_quote(codes_path("greedy")));
    const auto greedy_eq = run_split("codes --model " + model +
                                     " --speaker ryan --max-frames 6 --text 'Hello there.' "
                                     "--greedy=true --out " +
                                     shell_quote(codes_path("greedy_eq")));
    ASSERT_EQ(greedy.exit_code, 0) << greedy.err;
    ASSERT_EQ(greedy_eq.exit_code, 0) << greedy_eq.err;
    EXPECT_EQ(slurp(codes_path("greedy")), slurp(codes_path("greedy_eq")));
}

}  // namespace
}  // namespace qwen3tts
