// qwen3tts bench --streams N --json: one JSON object with the fields of issue 11, each a
// measured (positive) number.
#include <gtest/gtest.h>

#include <regex>

#include "support/test_support.hpp"

namespace qwen3tts {
namespace {

TEST(CliBenchStreams, JsonHasTheFields) {
    const auto r = testing::run_cli("bench --model " +
                                    testing::shell_quote(testing::model_dir("tiny-custom_voice")) +
                                    " --streams 2 --frames 6 --runs 1 --threads 2 --json"
                                    " --codec-conv winograd");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("{\"streams\": 2, \"threads\": 2, \"quant\": \"bf16\", "
                            "\"codec_conv\": \"winograd\", \"frames_per_stream\": 6"),
              std::string::npos)
        << r.output;
    for (const std::string field :
         {"aggregate_frames_per_s", "audio_s_per_wall_s", "per_stream_ms_per_frame",
          "join_first_audio_ms", "step_talker_ms", "step_predictor_ms", "step_codec_ms"}) {
        std::smatch m;
        ASSERT_TRUE(std::regex_search(r.output, m, std::regex("\"" + field + "\": ([0-9.]+)")))
            << field << "\n"
            << r.output;
        EXPECT_GT(std::stod(m[1].str()), 0.0) << field;
    }
}

}  // namespace
}  // namespace qwen3tts
