// The CLI on checkpoints whose config.json is hostile or odd: a clear error and exit code 1
// (never a crash) for ids outside the vocabularies, and no overflow for huge --max-frames.
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>

#include "core/npy.hpp"
#include "support/test_support.hpp"

namespace qwen3tts {
namespace {

using nlohmann::json;
using testing::run_cli;
using testing::run_shell;
using testing::shell_quote;

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// A copy of tiny-custom_voice (symlinks) whose config.json is edited by `edit`.
std::string edited_checkpoint(const std::string& name, const std::function<void(json&)>& edit) {
    const std::string src = testing::model_dir("tiny-custom_voice");
    const std::string dir = testing::tmp_dir() + "/bad_config_" + name;
    run_shell("rm -rf " + shell_quote(dir) + " && mkdir -p " + shell_quote(dir) + " && for f in " +
              shell_quote(src) + "/*; do ln -s \"$f\" " + shell_quote(dir) + "/; done && rm " +
              shell_quote(dir + "/config.json"));
    json cfg = json::parse(read_file(src + "/config.json"));
    edit(cfg);
    std::ofstream(dir + "/config.json") << cfg.dump(2);
    return dir;
}

std::string codes_args(const std::string& dir, const std::string& out) {
    return "codes --model " + shell_quote(dir) +
           " --speaker ryan --language english --greedy "
           "--text 'Hello world.' --out " +
           shell_quote(out);
}

TEST(CliBadConfig, CodecEosIdOutsideTheVocabularyIsAClearError) {
    // The session writes logits[codec_eos_token_id]: 100000 would be far past the 3072 logits.
    const std::string dir = edited_checkpoint(
        "eos", [](json& c) { c["talker_config"]["codec_eos_token_id"] = 100000; });
    const std::string out = testing::tmp_dir() + "/bad_config_eos.npy";
    const auto r = run_cli(codes_args(dir, out) + " --max-frames 4");
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find(dir + "/config.json: talker_config.codec_eos_token_id: 100000 is "
                                  "outside [0, 3072) (talker_config.vocab_size)"),
              std::string::npos)
        << r.output;
}

TEST(CliBadConfig, HugeMaxFramesStopsAtTheContext) {
    // A short context keeps the run short; INT_MAX frames used to overflow max_frames + 1.
    const std::string dir = edited_checkpoint(
        "context", [](json& c) { c["talker_config"]["max_position_embeddings"] = 40; });
    const std::string out = testing::tmp_dir() + "/bad_config_context.npy";
    const auto r = run_cli(codes_args(dir, out) + " --max-frames 2147483647");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("max frames 2147483647 exceeds the model's context (40 positions"),
              std::string::npos)
        << r.output;
    const NpyArray codes = read_npy(out);
    ASSERT_EQ(codes.shape.size(), 2u);
    EXPECT_EQ(codes.shape[1], 16);
    EXPECT_GE(codes.shape[0], 1);
    EXPECT_LT(codes.shape[0], 40);  // the prompt takes part of the 40 positions
}

}  // namespace
}  // namespace qwen3tts
