// A checkpoint with a NaN in one weight: `codes` fails with a message naming the frame and
// codebook whose logits are not finite, instead of writing garbage codes with exit 0.
#include <gtest/gtest.h>

#include <string>

#include "support/test_support.hpp"

namespace qwen3tts {
namespace {

using testing::run_cli;
using testing::run_shell;
using testing::shell_quote;

// A copy of tiny-custom_voice (symlinks, but a private model.safetensors) with element
// `index` of f32 tensor `tensor` set to NaN.
std::string checkpoint_with_nan(const std::string& name, const std::string& tensor, int index) {
    const std::string src = testing::model_dir("tiny-custom_voice");
    const std::string dir = testing::tmp_dir() + "/nan_" + name;
    const std::string script =
        "import json, struct, sys\n"
        "path, name, index = sys.argv[1], sys.argv[2], int(sys.argv[3])\n"
        "data = bytearray(open(path, 'rb').read())\n"
        "n = struct.unpack('<Q', data[:8])[0]\n"
        "t = json.loads(data[8:8 + n])[name]\n"
        "assert t['dtype'] == 'F32'\n"
        "at = 8 + n + t['data_offsets'][0] + 4 * index\n"
        "data[at:at + 4] = struct.pack('<f', float('nan'))\n"
        "open(path, 'wb').write(data)\n";
    const auto r = run_shell(
        "rm -rf " + shell_quote(dir) + " && mkdir -p " + shell_quote(dir) + " && for f in " +
        shell_quote(src) + "/*; do ln -s \"$f\" " + shell_quote(dir) + "/; done && rm " +
        shell_quote(dir + "/model.safetensors") + " && cp " +
        shell_quote(src + "/model.safetensors") + " " + shell_quote(dir) + " && python3 -c " +
        shell_quote(script) + " " + shell_quote(dir + "/model.safetensors") + " " +
        shell_quote(tensor) + " " + std::to_string(index));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return dir;
}

testing::CommandResult codes(const std::string& dir, const std::string& name) {
    return run_cli("codes --model " + shell_quote(dir) +
                   " --speaker ryan --language english --greedy --max-frames 10 "
                   "--text 'Hello world, this is a test.' --out " +
                   shell_quote(testing::tmp_dir() + "/nan_" + name + ".npy"));
}

TEST(NonFinite, NanInTheTalkerHeadFailsAtFrameZero) {
    // Row 5 of codec_head [3072, 32]: logit 5 of every talker step.
    const auto r =
        codes(checkpoint_with_nan("talker", "talker.codec_head.weight", 5 * 32), "talker");
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(
        r.output.find("talker logits of frame 0 (codebook 0) are not finite (index 5 is nan)"),
        std::string::npos)
        << r.output;
}

TEST(NonFinite, NanInACodePredictorHeadNamesTheCodebook) {
    // lm_head.2 predicts codebook 3.
    const auto r = codes(
        checkpoint_with_nan("predictor", "talker.code_predictor.lm_head.2.weight", 0), "predictor");
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.output.find("code predictor logits of frame 0 (codebook 3) are not finite "
                            "(index 0 is nan)"),
              std::string::npos)
        << r.output;
}

}  // namespace
}  // namespace qwen3tts
