// qwen3tts bench: --json is one JSON object on stdout with every documented field
// (docs/benchmarks.md) of the documented type, and --frames N makes every run exactly N frames
// long, end of speech or not; the text output carries the machine's peaks and the floor.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "support/test_support.hpp"

namespace qwen3tts {
namespace {

struct Split {
    int exit_code = -1;
    std::string out, err;
};

std::string slurp(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), {});
}

// bench on the tiny model with stdout and stderr apart.
Split bench(const std::string& extra) {
    const std::string stem = testing::tmp_dir() + "/bench_" +
                             ::testing::UnitTest::GetInstance()->current_test_info()->name();
    const auto r =
        testing::run_shell("{ " + testing::shell_quote(QWEN3TTS_CLI) + " bench --model " +
                           testing::shell_quote(testing::model_dir("tiny-custom_voice")) +
                           " --runs 1 " + extra + " >" + testing::shell_quote(stem + ".out") +
                           " 2>" + testing::shell_quote(stem + ".err") + "; }");
    return {r.exit_code, slurp(stem + ".out"), slurp(stem + ".err")};
}

TEST(CliBench, JsonHasEveryFieldWithItsType) {
    const Split r = bench("--frames 7 --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);  // throws on anything but JSON
    ASSERT_TRUE(j.is_object());
    for (const char* f : {"model_dir", "model_size", "model_type", "quant", "codec_conv"})
        EXPECT_TRUE(j.contains(f) && j[f].is_string()) << f;
    for (const char* f : {"threads", "frames", "weight_bytes_per_frame", "reused_positions"})
        EXPECT_TRUE(j.contains(f) && j[f].is_number_integer()) << f;
    for (const char* f :
         {"load_ms", "codec_load_ms", "prefill_ms", "talker_ms_per_frame", "predictor_ms_per_frame",
          "codec_ms_per_audio_s", "first_audio_ms", "rtf", "peak_rss_mb", "floor_ms_per_frame",
          "read_gb_per_s", "fp32_gflops", "prefill_same_voice_ms", "first_audio_same_voice_ms"}) {
        ASSERT_TRUE(j.contains(f) && j[f].is_number()) << f;
        EXPECT_GT(j[f].get<double>(), 0) << f;
    }
    ASSERT_TRUE(j.contains("bf16_gflops"));
    EXPECT_TRUE(j["bf16_gflops"].is_null() || j["bf16_gflops"].get<double>() > 0);
    // The floor's bandwidth is the better of the probes before and after the runs.
    ASSERT_TRUE(j.contains("read_gb_per_s_probes") && j["read_gb_per_s_probes"].is_array());
    ASSERT_EQ(j["read_gb_per_s_probes"].size(), 2u);
    const double before = j["read_gb_per_s_probes"][0], after = j["read_gb_per_s_probes"][1];
    EXPECT_GT(before, 0);
    EXPECT_GT(after, 0);
    EXPECT_EQ(j["read_gb_per_s"].get<double>(), std::max(before, after));
    EXPECT_EQ(j.size(), 26u) << j.dump();
    // After a request in the same voice: the role tokens and the codec track up to its bos
    // (spec talker.md §4.2: the control ids, the speaker and codec pad) are not run again.
    EXPECT_GE(j["reused_positions"].get<int>(), 3 + 3 + 1 + 1);
    EXPECT_EQ(j["codec_overlap"], "auto");
    EXPECT_EQ(j["frames"], 7);
    EXPECT_EQ(j["quant"], "bf16");
    EXPECT_EQ(j["codec_conv"], "direct");
    EXPECT_EQ(j["model_type"], "custom_voice");
    EXPECT_GE(j["threads"].get<int>(), 1);
    EXPECT_NEAR(j["floor_ms_per_frame"].get<double>(),
                j["weight_bytes_per_frame"].get<double>() / j["read_gb_per_s"].get<double>() / 1e6,
                1e-3 + 1e-3 * j["floor_ms_per_frame"].get<double>());
}

TEST(CliBench, JsonWithoutCodecHasNullPipelineFields) {
    const Split r = bench("--frames 3 --no-codec --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    for (const char* f : {"codec_load_ms", "codec_ms_per_audio_s", "codec_overlap",
                          "first_audio_ms", "rtf", "first_audio_same_voice_ms"})
        EXPECT_TRUE(j.contains(f) && j[f].is_null()) << f;
}

// The tiny model's greedy run ends at EOS after a few frames; --frames suppresses that.
TEST(CliBench, FramesForcesExactlyThatManyFrames) {
    for (int n : {1, 40}) {
        const Split r = bench("--greedy --no-codec --json --frames " + std::to_string(n));
        ASSERT_EQ(r.exit_code, 0) << r.err;
        EXPECT_EQ(nlohmann::json::parse(r.out)["frames"], n);
    }
}

TEST(CliBench, TextOutputShowsTheMachineAndTheFloor) {
    const Split r = bench("--frames 2 --no-codec");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("machine          read "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(" GFLOP/s, bf16 "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("frames per run   2 "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("ms/frame (floor "), std::string::npos) << r.out;
}

// More threads than CPUs are capped with one warning, although the machine is probed twice
// (before and after the runs).
TEST(CliBench, ThreadsAboveTheCpusWarnOnce) {
    const Split r = bench("--frames 2 --no-codec --json --threads 4096");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string warning = "threads = 4096 is more than the";
    const size_t first = r.err.find(warning);
    ASSERT_NE(first, std::string::npos) << r.err;
    EXPECT_EQ(r.err.find(warning, first + 1), std::string::npos) << r.err;
}

}  // namespace
}  // namespace qwen3tts
