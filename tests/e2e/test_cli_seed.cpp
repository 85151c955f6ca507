// Seeds from the command line: without --seed a run draws a random one and prints it in the
// closing line, and --seed with that number reproduces the run exactly; --seed takes the full
// uint64 range and refuses anything else, quoting it as typed.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>

#include "support/test_support.hpp"

namespace qwen3tts {
namespace {

using testing::run_cli;
using testing::shell_quote;

std::string tmp(const std::string& name) {
    return testing::tmp_dir() + "/seed_" + name;
}
std::string slurp(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), {});
}

std::string run(const std::string& command, const std::string& extra, const std::string& out) {
    const auto r =
        run_cli(command + " --model " + shell_quote(testing::model_dir("tiny-custom_voice")) +
                " --speaker ryan --max-frames 8 --text 'Hello there, how are you?' " + extra +
                " --out " + shell_quote(tmp(out)));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return r.output;
}

std::string printed_seed(const std::string& output) {
    std::smatch m;
    EXPECT_TRUE(std::regex_search(output, m, std::regex(", seed ([0-9]+)\n$|; seed ([0-9]+)\n$")))
        << output;
    return m[1].matched ? m[1].str() : m[2].str();
}

TEST(CliSeed, ARandomSeedIsPrintedAndReproducesTheRun) {
    for (const std::string cmd : {"codes", "speak"}) {
        const std::string ext = cmd == "codes" ? ".npy" : ".wav";
        const std::string seed = printed_seed(run(cmd, "", "random" + ext));
        const std::string again = run(cmd, "--seed " + seed, "again" + ext);
        EXPECT_EQ(printed_seed(again), seed);
        EXPECT_EQ(slurp(tmp("again" + ext)), slurp(tmp("random" + ext))) << cmd;
    }
}

TEST(CliSeed, RunsWithoutASeedDiffer) {
    const std::string a = printed_seed(run("codes", "", "a.npy"));
    const std::string b = printed_seed(run("codes", "", "b.npy"));
    EXPECT_NE(a, b);  // two equal 64-bit draws: 2^-64
}

TEST(CliSeed, TheFullUint64RangeIsAccepted) {
    for (const std::string seed : {"0", "18446744073709551615"})
        EXPECT_EQ(printed_seed(run("codes", "--seed=" + seed, "max.npy")), seed);
}

TEST(CliSeed, AnythingElseIsRefusedAsTyped) {
    for (const std::string bad :
         {"18446744073709551616", "-1", "1e3", "0x10", "+5", "", "99999999999999999999999"}) {
        const auto r =
            run_cli("codes --model " + shell_quote(testing::model_dir("tiny-custom_voice")) +
                    " --speaker ryan --text hi --out " + shell_quote(tmp("bad.npy")) +
                    " --seed=" + shell_quote(bad));
        EXPECT_EQ(r.exit_code, 1) << bad;
        EXPECT_NE(r.output.find("--seed expects an integer in 0 ... 18446744073709551615, got '" +
                                bad + "'"),
                  std::string::npos)
            << r.output;
    }
}

}  // namespace
}  // namespace qwen3tts
