// --threads on the CLI: negative is an error naming the option; more than the online CPUs is
// capped with a warning (1000 threads once took minutes for 20 frames) unless --oversubscribe.
#include <gtest/gtest.h>

#include <string>

#include "core/thread_pool.hpp"
#include "support/test_support.hpp"

namespace qwen3tts {
namespace {

testing::CommandResult codes(const std::string& extra) {
    return testing::run_cli(
        "codes --model " + testing::shell_quote(testing::model_dir("tiny-custom_voice")) +
        " --speaker ryan --greedy --max-frames 3 --text Hi --out " +
        testing::shell_quote(testing::tmp_dir() + "/threads.npy") + " " + extra);
}

TEST(CliThreads, NegativeIsAnError) {
    const auto r = codes("--threads -1");
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.output.find("--threads must be >= 0, got '-1'"), std::string::npos) << r.output;
}

TEST(CliThreads, MoreThanTheOnlineCpusIsCappedWithAWarning) {
    const int cpus = ThreadPool::online_cpus();
    const auto r = codes("--threads 1000");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("threads = 1000 is more than the " + std::to_string(cpus) +
                            " online CPUs; using " + std::to_string(cpus)),
              std::string::npos)
        << r.output;
}

TEST(CliThreads, OversubscribeKeepsTheCountWithoutAWarning) {
    const int n = ThreadPool::online_cpus() + 1;
    const auto r = codes("--oversubscribe --threads " + std::to_string(n));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(r.output.find("online CPUs"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace qwen3tts
