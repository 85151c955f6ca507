// SynthesisOptions::min_frames (`--min-frames`): end of speech is suppressed until that many
// frames exist, so benchmark runs have the same length; it cannot exceed max_frames, nor be
// negative. The tiny model never ends on its own, so the test uses a copy whose codec_head
// makes EOS the greedy choice whenever its logit is positive (every other row is minus the
// EOS row): such a run ends after a few frames.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "qwen3tts/qwen3tts.hpp"
#include "support/test_support.hpp"

namespace qwen3tts {
namespace {

using testing::shell_quote;

const char* const kText = "Hello world, this is a test.";

std::string checkpoint_that_ends_early() {
    const std::string src = testing::model_dir("tiny-custom_voice");
    const std::string dir = testing::tmp_dir() + "/min_frames_eos";
    const std::string script =
        "import json, struct, sys\n"
        "path, eos = sys.argv[1], 2150\n"
        "data = bytearray(open(path, 'rb').read())\n"
        "n = struct.unpack('<Q', data[:8])[0]\n"
        "t = json.loads(data[8:8 + n])['talker.codec_head.weight']\n"
        "assert t['dtype'] == 'F32'\n"
        "rows, cols = t['shape']\n"
        "at = 8 + n + t['data_offsets'][0]\n"
        "row = struct.unpack_from('<%df' % cols, data, at + 4 * cols * eos)\n"
        "neg = struct.pack('<%df' % cols, *[-x for x in row])\n"
        "for r in range(rows):\n"
        "    if r != eos: data[at + 4 * cols * r:at + 4 * cols * (r + 1)] = neg\n"
        "open(path, 'wb').write(data)\n";
    const auto r = testing::run_shell(
        "rm -rf " + shell_quote(dir) + " && mkdir -p " + shell_quote(dir) + " && for f in " +
        shell_quote(src) + "/*; do ln -s \"$f\" " + shell_quote(dir) + "/; done && rm " +
        shell_quote(dir + "/model.safetensors") + " && cp " +
        shell_quote(src + "/model.safetensors") + " " + shell_quote(dir) + " && python3 -c " +
        shell_quote(script) + " " + shell_quote(dir + "/model.safetensors"));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return dir;
}

SynthesisOptions greedy(const Model& model) {
    SynthesisOptions o = model.default_options();
    o.language = "English";
    o.speaker = "Ryan";
    o.talker.do_sample = o.predictor.do_sample = false;
    o.max_frames = 60;  // bounds the run should the premise fail
    return o;
}

TEST(MinFrames, SuppressesEndOfSpeechUntilThatManyFrames) {
    const Model model = Model::load(checkpoint_that_ends_early());
    Synthesizer synth(model);
    GenerationReport free_run;
    const auto free_codes = synth.generate_codes(kText, greedy(model), {}, &free_run);
    ASSERT_TRUE(free_run.stopped_at_eos);  // the premise: this run ends early on its own
    ASSERT_LT(free_run.frames, 20);
    SynthesisOptions o = greedy(model);
    const int n = int(free_run.frames) + 20;
    o.min_frames = o.max_frames = n;
    GenerationReport forced;
    const auto codes = synth.generate_codes(kText, o, {}, &forced);
    EXPECT_EQ(forced.frames, n);  // (the token drawn after the last frame may still be EOS)
    ASSERT_EQ(codes.size(), size_t(n) * 16);
    // The frames before the free run's end are the same: only EOS was masked.
    EXPECT_TRUE(std::equal(free_codes.begin(), free_codes.end(), codes.begin()));

    // The CLI's --min-frames, through `codes`: a [n, 16] file.
    const std::string out = testing::tmp_dir() + "/min_frames.npy";
    const auto r = testing::run_cli("codes --model " + shell_quote(checkpoint_that_ends_early()) +
                                    " --speaker ryan --language english --greedy --text " +
                                    shell_quote(kText) + " --min-frames " + std::to_string(n) +
                                    " --out " + shell_quote(out));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(load_codes_npy(out, model).size(), size_t(n) * 16);
}

TEST(MinFrames, AboveMaxFramesOrNegativeIsAnError) {
    const Model model = Model::load(testing::model_dir("tiny-custom_voice"));
    Synthesizer synth(model);
    SynthesisOptions o = greedy(model);
    o.min_frames = 9;
    o.max_frames = 4;
    EXPECT_EQ(testing::error_of([&] { synth.generate_codes(kText, o); }),
              "min frames 9 is more than max frames 4");
    o.min_frames = -1;
    EXPECT_EQ(testing::error_of([&] { synth.generate_codes(kText, o); }),
              "min frames must be >= 0, got -1");
}

}  // namespace
}  // namespace qwen3tts
