// The qwen3tts CLI as a user runs it: `codes` and `info` on the three tiny checkpoints, and
// one clear error line (never a crash) for each kind of bad input.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>

#include "core/npy.hpp"
#include "support/test_support.hpp"

namespace qwen3tts {
namespace {

using testing::run_cli;
using testing::run_shell;
using testing::shell_quote;

std::string model(const std::string& v) {
    return shell_quote(testing::model_dir(v));
}
std::string out_path(const std::string& name) {
    return testing::tmp_dir() + "/cli_" + name;
}

std::vector<int64_t> load_codes(const std::string& path) {
    return read_npy(path).to_i64();
}

// A copy of a tiny checkpoint made of symlinks, so one file can be replaced or broken.
std::string checkpoint_copy(const std::string& name,
                            const std::string& variant = "tiny-custom_voice") {
    const std::string dir = testing::tmp_dir() + "/ckpt_" + name;
    run_shell("rm -rf " + shell_quote(dir) + " && mkdir -p " + shell_quote(dir) + " && for f in " +
              shell_quote(testing::model_dir(variant)) + "/*; do ln -s \"$f\" " + shell_quote(dir) +
              "/; done");
    return dir;
}

void replace_file(const std::string& dir, const std::string& file, const std::string& content) {
    ::unlink((dir + "/" + file).c_str());
    std::ofstream(dir + "/" + file, std::ios::binary) << content;
}

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// model.safetensors with its JSON header edited by `edit`.
std::string edited_safetensors(const std::string& variant,
                               const std::function<void(nlohmann::json&)>& edit) {
    const std::string bytes = read_file(testing::model_dir(variant) + "/model.safetensors");
    uint64_t n = 0;
    std::memcpy(&n, bytes.data(), 8);
    auto header = nlohmann::json::parse(bytes.substr(8, n));
    edit(header);
    std::string h = header.dump();
    h.append((8 - h.size() % 8) % 8, ' ');
    const uint64_t m = h.size();
    return std::string(reinterpret_cast<const char*>(&m), 8) + h + bytes.substr(8 + n);
}

TEST(CliCodes, GreedyCodesMatchTheReferenceForEachVariant) {
    struct {
        std::string variant, args, golden_tag;
    } cases[] = {
        {"tiny-custom_voice",
         "--speaker Ryan --language English --text 'Hello world, this is a test.'", "cv_en_ryan"},
        {"tiny-voice_design",
         "--language English --text 'Hello world, this is a test.' --instruct 'A warm, "
         "low-pitched male voice, speaking slowly and calmly.'",
         "vd_en"},
        {"tiny-custom_voice",
         "--speaker Ryan --language English --text-layout streaming --text 'Hello world, this is "
         "a test.'",
         "cv_en_ryan_streamtext"},
    };
    for (const auto& c : cases) {
        const std::string out = out_path(c.golden_tag + ".npy");
        const auto r = run_cli("codes --model " + model(c.variant) + " " + c.args +
                               " --greedy --max-frames 10 --out " + shell_quote(out));
        ASSERT_EQ(r.exit_code, 0) << r.output;
        const auto a = read_npy(out);
        EXPECT_EQ(a.descr, "<i8");
        EXPECT_EQ(a.shape, (std::vector<int64_t>{10, 16}));
        EXPECT_EQ(a.to_i64(), testing::golden(c.variant, c.golden_tag + "__codes").to_i64())
            << c.golden_tag;
    }
}

TEST(CliCodes, NoMmapLoadGivesTheSameCodes) {
    const std::string out = out_path("nommap.npy");
    const auto r = run_cli("codes --no-mmap --model " + model("tiny-custom_voice") +
                           " --speaker ryan --language english --greedy --max-frames 10 "
                           "--text 'Hello world, this is a test.' --out " +
                           shell_quote(out));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(load_codes(out), testing::golden("tiny-custom_voice", "cv_en_ryan__codes").to_i64());
}

TEST(CliCodes, TextFromStdin) {
    const std::string out = out_path("stdin.npy");
    const auto r =
        run_shell("printf 'Hello world, this is a test.' | " + shell_quote(QWEN3TTS_CLI) +
                  " codes --model " + model("tiny-custom_voice") +
                  " --speaker ryan --language english --greedy --max-frames 10 --text - "
                  "--out " +
                  shell_quote(out));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(load_codes(out), testing::golden("tiny-custom_voice", "cv_en_ryan__codes").to_i64());
}

TEST(CliCodes, SameSeedSameCodesOtherSeedOtherCodes) {
    auto run = [&](int seed, const std::string& name) {
        const std::string out = out_path(name);
        const auto r = run_cli("codes --model " + model("tiny-custom_voice") +
                               " --speaker vivian --text 'Sampling is seeded.' --max-frames 12 "
                               "--seed " +
                               std::to_string(seed) + " --out " + shell_quote(out));
        EXPECT_EQ(r.exit_code, 0) << r.output;
        return load_codes(out);
    };
    const auto a = run(5, "s5a.npy"), b = run(5, "s5b.npy"), c = run(6, "s6.npy");
    EXPECT_EQ(a, b);
    EXPECT_NE(a, c);
    for (auto v : a) EXPECT_TRUE(v >= 0 && v < 2048);
}

TEST(CliInfo, ListsSpeakersLanguagesAndDialects) {
    const auto cv = run_cli("info --model " + model("tiny-custom_voice"));
    ASSERT_EQ(cv.exit_code, 0) << cv.output;
    EXPECT_NE(cv.output.find("custom_voice"), std::string::npos);
    EXPECT_NE(cv.output.find("ryan"), std::string::npos);
    EXPECT_NE(cv.output.find("beijing_dialect"), std::string::npos);
    EXPECT_NE(cv.output.find("codes:       16 per frame, each in [0, 2048)"), std::string::npos);
    const auto vd = run_cli("info --model " + model("tiny-voice_design"));
    ASSERT_EQ(vd.exit_code, 0) << vd.output;
    EXPECT_NE(vd.output.find("voice_design"), std::string::npos);
    EXPECT_NE(vd.output.find("english"), std::string::npos);
    const auto base = run_cli("info --model " + model("tiny-base"));
    ASSERT_EQ(base.exit_code, 0) << base.output;
    EXPECT_NE(base.output.find("base"), std::string::npos);
}

struct BadInput {
    std::string name, args, expected;
};

class CliErrors : public ::testing::TestWithParam<BadInput> {};

TEST_P(CliErrors, OneClearLineAndNonZeroExit) {
    const auto& c = GetParam();
    const auto r = run_cli(c.args);
    EXPECT_NE(r.exit_code, 0) << r.output;
    EXPECT_LT(r.exit_code, 128) << "crashed: " << r.output;
    EXPECT_NE(r.output.find(c.expected), std::string::npos)
        << "expected '" << c.expected << "' in: " << r.output;
    EXPECT_NE(r.output.find("error:"), std::string::npos) << r.output;
}

std::string cv_args(const std::string& extra) {
    return "codes --model " + model("tiny-custom_voice") + " --out " +
           shell_quote(out_path("err.npy")) + " " + extra;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, CliErrors,
    ::testing::Values(
        BadInput{"missing_model", "info --model /nonexistent/model", "does not exist"},
        BadInput{"unknown_speaker", cv_args("--speaker bob --text hi"),
                 "unknown speaker 'bob'; this model has: aiden, dylan"},
        BadInput{"no_speaker", cv_args("--text hi"), "needs --speaker (one of: aiden"},
        BadInput{"unknown_language", cv_args("--speaker ryan --language klingon --text hi"),
                 "unknown language 'klingon'; this model supports: auto, chinese"},
        BadInput{"dialect_as_language",
                 cv_args("--speaker ryan --language beijing_dialect --text hi"),
                 "'beijing_dialect' is a dialect, not a language (as in the official code): "
                 "speaker dylan speaks it when the language is auto or chinese"},
        BadInput{"empty_text", cv_args("--speaker ryan --text ''"), "the text to speak is empty"},
        BadInput{"blank_text", cv_args("--speaker ryan --text '  \n '"),
                 "the text to speak is empty"},
        BadInput{"speaker_for_voice_design",
                 "codes --model " + model("tiny-voice_design") +
                     " --speaker ryan --text hi --out " + shell_quote(out_path("e.npy")),
                 "named speakers exist only in CustomVoice models"},
        BadInput{"base_without_reference",
                 "codes --model " + model("tiny-base") + " --text hi --out " +
                     shell_quote(out_path("e.npy")),
                 "give a reference"},
        BadInput{"bad_temperature", cv_args("--speaker ryan --text hi --temperature 0"),
                 "temperature must be > 0"},
        BadInput{"bad_top_p", cv_args("--speaker ryan --text hi --top-p 1.5"),
                 "top-p must be in (0, 1]"},
        BadInput{"bad_max_frames", cv_args("--speaker ryan --text hi --max-frames 0"),
                 "--max-frames must be >= 1, got '0'"},
        BadInput{"not_a_number", cv_args("--speaker ryan --text hi --seed abc"),
                 "--seed expects an integer in 0 ... 18446744073709551615, got 'abc'"},
        BadInput{"unknown_option", cv_args("--speaker ryan --text hi --bogus 1"),
                 "unknown option '--bogus'"},
        BadInput{"bad_layout", cv_args("--speaker ryan --text hi --text-layout sideways"),
                 "unknown text layout 'sideways'"},
        BadInput{"missing_out", "codes --model " + model("tiny-custom_voice") + " --text hi",
                 "--out FILE.npy is required"},
        BadInput{"unwritable_out",
                 "codes --model " + model("tiny-custom_voice") +
                     " --speaker ryan --text hi --max-frames 2 --out /nonexistent/dir/c.npy",
                 "/nonexistent/dir/c.npy: cannot open for writing"}),
    [](const ::testing::TestParamInfo<BadInput>& p) { return p.param.name; });

TEST(CliBrokenCheckpoint, MissingFilesAreNamed) {
    for (const std::string file : {"config.json", "generation_config.json", "vocab.json",
                                   "merges.txt", "model.safetensors"}) {
        const std::string dir = checkpoint_copy("missing");
        ::unlink((dir + "/" + file).c_str());
        const auto r = run_cli("info --model " + shell_quote(dir));
        EXPECT_EQ(r.exit_code, 1) << file << ": " << r.output;
        EXPECT_NE(r.output.find(file), std::string::npos) << file << ": " << r.output;
    }
}

// `codes` needs the codec's frame layout (its config) but never the decoder's weights: with
// them missing it still writes the same codes, and `speak` names the missing file.
TEST(CliBrokenCheckpoint, CodesNeverLoadTheCodecDecoder) {
    const std::string dir = checkpoint_copy("no_decoder");
    const std::string codec = testing::model_dir("tiny-custom_voice") + "/speech_tokenizer";
    run_shell("rm " + shell_quote(dir + "/speech_tokenizer") + " && mkdir " +
              shell_quote(dir + "/speech_tokenizer") + " && ln -s " +
              shell_quote(codec + "/config.json") + " " + shell_quote(dir + "/speech_tokenizer/"));
    const std::string args = " --speaker ryan --text hi --max-frames 3 --seed 4 --quiet --out ";
    const auto want = run_cli("codes --model " + model("tiny-custom_voice") + args +
                              shell_quote(out_path("decoder_intact.npy")));
    ASSERT_EQ(want.exit_code, 0) << want.output;
    const auto got = run_cli("codes --model " + shell_quote(dir) + args +
                             shell_quote(out_path("decoder_missing.npy")));
    ASSERT_EQ(got.exit_code, 0) << got.output;
    EXPECT_EQ(load_codes(out_path("decoder_missing.npy")),
              load_codes(out_path("decoder_intact.npy")));
    const auto speak = run_cli("speak --model " + shell_quote(dir) +
                               " --speaker ryan --text hi --max-frames 3 --out " +
                               shell_quote(out_path("decoder_missing.wav")));
    EXPECT_EQ(speak.exit_code, 1) << speak.output;
    EXPECT_NE(speak.output.find("speech_tokenizer: no model.safetensors"), std::string::npos)
        << speak.output;
}

TEST(CliBrokenCheckpoint, TruncatedSafetensors) {
    const std::string dir = checkpoint_copy("trunc");
    const std::string bytes =
        read_file(testing::model_dir("tiny-custom_voice") + "/model.safetensors");
    replace_file(dir, "model.safetensors", bytes.substr(0, bytes.size() / 2));
    const auto r = run_cli("info --model " + shell_quote(dir));
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("model.safetensors: tensor"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("truncated or corrupt"), std::string::npos) << r.output;
}

TEST(CliBrokenCheckpoint, CorruptHeader) {
    const std::string dir = checkpoint_copy("corrupt");
    std::string bytes = read_file(testing::model_dir("tiny-custom_voice") + "/model.safetensors");
    bytes[20] = '\x01';
    bytes[21] = '{';
    replace_file(dir, "model.safetensors", bytes);
    const auto r = run_cli("info --model " + shell_quote(dir));
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("corrupt safetensors header"), std::string::npos) << r.output;
}

TEST(CliBrokenCheckpoint, WrongShapeAndWrongDtypeNameTheTensor) {
    const std::string dir = checkpoint_copy("shape");
    replace_file(dir, "model.safetensors",
                 edited_safetensors("tiny-custom_voice", [](nlohmann::json& h) {
                     h["talker.codec_head.weight"]["shape"] = {1536, 64};
                 }));
    auto r = run_cli("info --model " + shell_quote(dir));
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(
        r.output.find("tensor talker.codec_head.weight has shape [1536, 64], expected [3072, 32]"),
        std::string::npos)
        << r.output;

    const std::string dir2 = checkpoint_copy("dtype");
    replace_file(dir2, "model.safetensors",
                 edited_safetensors("tiny-custom_voice", [](nlohmann::json& h) {
                     h["talker.model.norm.weight"]["dtype"] = "I32";
                 }));
    r = run_cli("info --model " + shell_quote(dir2));
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("tensor talker.model.norm.weight has dtype I32"), std::string::npos)
        << r.output;

    const std::string dir3 = checkpoint_copy("missing_tensor");
    replace_file(dir3, "model.safetensors",
                 edited_safetensors("tiny-custom_voice", [](nlohmann::json& h) {
                     h.erase("talker.model.layers.1.mlp.up_proj.weight");
                 }));
    r = run_cli("info --model " + shell_quote(dir3));
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("missing tensor talker.model.layers.1.mlp.up_proj.weight"),
              std::string::npos)
        << r.output;
}

TEST(CliBrokenCheckpoint, ConfigFieldErrorsNameTheField) {
    const std::string dir = checkpoint_copy("config");
    auto cfg =
        nlohmann::json::parse(read_file(testing::model_dir("tiny-custom_voice") + "/config.json"));
    cfg["talker_config"].erase("num_hidden_layers");
    replace_file(dir, "config.json", cfg.dump());
    auto r = run_cli("info --model " + shell_quote(dir));
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("talker_config.num_hidden_layers: missing"), std::string::npos)
        << r.output;

    replace_file(dir, "config.json", "{ not json");
    r = run_cli("info --model " + shell_quote(dir));
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("config.json: invalid JSON"), std::string::npos) << r.output;
}

TEST(CliWarnings, InstructionTo06BCustomVoiceIsDroppedWithAWarning) {
    // The official code drops `instruct` for tts_model_size "0b6": same frames as without it.
    const std::string dir = checkpoint_copy("size06");
    auto cfg =
        nlohmann::json::parse(read_file(testing::model_dir("tiny-custom_voice") + "/config.json"));
    cfg["tts_model_size"] = "0b6";
    replace_file(dir, "config.json", cfg.dump());
    const std::string with = out_path("instr.npy"), without = out_path("noinstr.npy");
    const std::string common = "codes --model " + shell_quote(dir) +
                               " --speaker ryan --language english --greedy --max-frames 6 "
                               "--text 'Hello world, this is a test.'";
    const auto r1 = run_cli(common + " --instruct 'Speak happily.' --out " + shell_quote(with));
    ASSERT_EQ(r1.exit_code, 0) << r1.output;
    EXPECT_NE(r1.output.find("warning: the 0.6B CustomVoice model ignores instructions"),
              std::string::npos)
        << r1.output;
    const auto r2 = run_cli(common + " --out " + shell_quote(without));
    ASSERT_EQ(r2.exit_code, 0) << r2.output;
    EXPECT_EQ(load_codes(with), load_codes(without));
}

TEST(CliErrorsLong, TextLongerThanTheContext) {
    // 40k tokens of text ("go", " on" per repetition) against a 32768-position context.
    std::string text;
    for (int i = 0; i < 20000; ++i) text += "go on ";
    const std::string file = out_path("long.txt");
    std::ofstream(file) << text;
    const auto r = run_shell(shell_quote(QWEN3TTS_CLI) + " codes --model " +
                             model("tiny-custom_voice") + " --speaker ryan --text - --out " +
                             shell_quote(out_path("long.npy")) + " < " + shell_quote(file));
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("the text is too long"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace qwen3tts
