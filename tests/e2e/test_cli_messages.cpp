// What the CLI says when the user slips: one clear error line naming the option and quoting
// the value as typed, or a warning where an option is ignored, never silence. Languages:
// codes are aliases, dialects are refused with the speaker that carries them.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "qwen3tts/qwen3tts.hpp"
#include "support/test_support.hpp"

namespace qwen3tts {
namespace {

using testing::run_cli;
using testing::run_shell;
using testing::shell_quote;

std::string tmp(const std::string& name) {
    return testing::tmp_dir() + "/messages_" + name;
}
std::string model(const std::string& v) {
    return shell_quote(testing::model_dir(v));
}
std::string slurp(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), {});
}

// Any file that starts like a WAV (--voice only looks at the first bytes). Written when the
// cases are built, i.e. in every process ctest starts for one of them, some in parallel: so
// written beside and renamed into place, that a running case never reads it half-written.
std::string fake_wav() {
    const std::string path = tmp("clip.wav");
    const std::string part = path + "." + std::to_string(::getpid());
    std::ofstream(part, std::ios::binary) << "RIFF" << std::string(40, 'x');
    std::rename(part.c_str(), path.c_str());
    return path;
}

std::string cv(const std::string& extra) {
    return "codes --model " + model("tiny-custom_voice") + " --out " + shell_quote(tmp("err.npy")) +
           " " + extra;
}

struct Case {
    std::string name, command, expected;
};

class CliMessages : public ::testing::TestWithParam<Case> {};

TEST_P(CliMessages, OneErrorLineNamingTheProblem) {
    const Case& c = GetParam();
    const auto r = run_shell(c.command);
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find(c.expected), std::string::npos)
        << "expected '" << c.expected << "' in: " << r.output;
    EXPECT_EQ(r.output.find('\n'), r.output.size() - 1) << "one line: " << r.output;
}

const std::string kCli = shell_quote(QWEN3TTS_CLI) + " ";

INSTANTIATE_TEST_SUITE_P(
    Cases, CliMessages,
    ::testing::Values(
        Case{"voice_is_audio",
             kCli + "codes --model " + model("tiny-base") + " --voice " + shell_quote(fake_wav()) +
                 " --text hi --out " + shell_quote(tmp("v.npy")),
             " is an audio file, not a voice file: clone from it with --ref-audio "},
        Case{"two_stdin_readers",
             "echo hi | " + kCli + "codes --model " + model("tiny-base") +
                 " --text - --ref-audio x.wav --ref-text - --out " + shell_quote(tmp("s.npy")),
             "--text - and --ref-text - both ask for standard input; give one of them as text"},
        Case{"utf8_text_argument", kCli + cv("--speaker ryan --text \"$(printf 'ab\\377cd')\""),
             "--text: invalid UTF-8 at byte offset 2 (byte 0xff)"},
        Case{"utf8_text_stdin", "printf 'hello \\303(' | " + kCli + cv("--speaker ryan --text -"),
             "--text (standard input): invalid UTF-8 at byte offset 6 (byte 0xc3)"},
        Case{"utf8_instruct",
             kCli + "codes --model " + model("tiny-voice_design") +
                 " --text hi --instruct \"$(printf 'calm \\355\\240\\200')\" --out " +
                 shell_quote(tmp("i.npy")),
             "--instruct: invalid UTF-8 at byte offset 5 (byte 0xed)"},
        Case{"utf8_ref_text",
             kCli + "codes --model " + model("tiny-base") +
                 " --text hi --ref-audio x.wav --ref-text \"$(printf '\\300\\257x')\" --out " +
                 shell_quote(tmp("r.npy")),
             "--ref-text: invalid UTF-8 at byte offset 0 (byte 0xc0)"},
        Case{"model_is_a_file",
             kCli + "info --model " +
                 shell_quote(testing::model_dir("tiny-custom_voice") + "/config.json"),
             "config.json' is a file; give the model folder (the one holding config.json and "
             "model.safetensors) or a Hugging Face repo id Org/Name"},
        Case{"model_neither_folder_nor_hub",
             "env -u HF_HUB_OFFLINE HF_HUB_CACHE=" + shell_quote(tmp("empty_cache")) +
                 " HF_ENDPOINT=http://127.0.0.1:9 " + kCli + "info --model no-such-org/no-model",
             "model 'no-such-org/no-model' is not a local folder (there is no "
             "./no-such-org/no-model), so it was looked up on the Hugging Face hub: cannot reach "
             "the Hugging Face hub at http://127.0.0.1:9"},
        Case{"model_offline",
             "HF_HUB_OFFLINE=1 HF_HUB_CACHE=" + shell_quote(tmp("empty_cache")) + " " + kCli +
                 "info --model no-such-org/no-model",
             "model 'no-such-org/no-model' is neither a local directory nor in the Hugging Face "
             "cache"},
        Case{"dialect_as_language",
             kCli + cv("--speaker ryan --language sichuan_dialect --text hi"),
             "'sichuan_dialect' is a dialect, not a language (as in the official code): speaker "
             "eric speaks it when the language is auto or chinese"},
        Case{"empty_language", kCli + cv("--speaker ryan --language '' --text hi"),
             "the language is empty; give one of: auto, chinese (zh), english (en)"},
        Case{"unknown_language", kCli + cv("--speaker ryan --language xx --text hi"),
             "unknown language 'xx'; this model supports: auto, chinese (zh), english (en)"},
        Case{"repeated_text", kCli + cv("--speaker ryan --text one --text two"),
             "--text is given twice ('one' and 'two'); give it once"},
        Case{"format_contradicts_extension",
             kCli + "speak --model " + model("tiny-custom_voice") +
                 " --speaker ryan --text hi --format mp3 --out " + shell_quote(tmp("a.wav")),
             "--format mp3 contradicts --out " + tmp("a.wav") +
                 " (a .wav file is written as wav or wav-f32); change the extension or drop "
                 "--format"},
        Case{"float_as_typed", kCli + cv("--speaker ryan --text hi --temperature -1.50"),
             "--temperature must be > 0, got '-1.50'"},
        Case{"probability_as_typed", kCli + cv("--speaker ryan --text hi --top-p=1.50"),
             "--top-p must be in (0, 1], got '1.50'"},
        Case{"int_as_typed", kCli + cv("--speaker ryan --text hi --top-k 0x10"),
             "--top-k expects an integer, got '0x10'"},
        Case{"misspelt_option", kCli + cv("--speaker ryan --text hi --temprature 1"),
             "unknown option '--temprature'; did you mean --temperature? (see `qwen3tts codes "
             "--help`)"},
        Case{"switch_with_bad_value", kCli + cv("--speaker ryan --text hi --greedy=maybe"),
             "--greedy is a switch: give it alone, or as --greedy=true or --greedy=false, not "
             "'maybe'"},
        Case{"missing_value", kCli + cv("--speaker ryan --text"), "--text needs a value (TEXT)"},
        Case{"unexpected_argument", kCli + "list foo",
             "unexpected argument 'foo'; options start with -- (see `qwen3tts list --help`)"},
        Case{"option_of_another_command", kCli + "info --text hi",
             "unknown option '--text' (see `qwen3tts info --help`)"},
        Case{"pull_without_repo", kCli + "pull",
             "missing Org/Name[@revision] (see `qwen3tts pull --help`)"}),
    [](const ::testing::TestParamInfo<Case>& p) { return p.param.name; });

TEST(CliLanguages, CodesAndAnyCaseAreAliasesOfTheNames) {
    auto codes = [](const std::string& language, const std::string& name) {
        const auto r = run_cli("codes --model " + model("tiny-custom_voice") +
                               " --speaker ryan --greedy --max-frames 6 --text 'Hello there.' "
                               "--language " +
                               language + " --out " + shell_quote(tmp(name)));
        EXPECT_EQ(r.exit_code, 0) << language << ": " << r.output;
        return slurp(tmp(name));
    };
    const std::string english = codes("english", "english.npy");
    EXPECT_EQ(codes("en", "en.npy"), english);
    EXPECT_EQ(codes("EN", "EN.npy"), english);
    EXPECT_EQ(codes("English", "English.npy"), english);
    EXPECT_NE(codes("zh", "zh.npy"), english);  // the language reaches the prompt
}

TEST(CliLanguages, InfoShowsEachSpeakersDialectAndTheLanguageCodes) {
    const auto r = run_cli("info --model " + model("tiny-custom_voice"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("speakers:    aiden, dylan (beijing_dialect), eric (sichuan_dialect), "
                            "ono_anna,"),
              std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("a speaker's dialect is used with --language auto or chinese"),
              std::string::npos);
    EXPECT_NE(r.output.find("languages:   auto, chinese (zh), english (en), french (fr)"),
              std::string::npos)
        << r.output;
    const std::string languages = r.output.substr(r.output.find("languages:"));
    EXPECT_EQ(languages.find("dialect"), std::string::npos) << "dialects listed as languages";
}

TEST(CliLanguages, TheLibraryResolvesThemForEveryCaller) {
    const Model m = Model::load(testing::model_dir("tiny-custom_voice"));
    const ModelInfo info = m.info();
    ASSERT_EQ(info.language_codes.size(), info.languages.size());
    EXPECT_EQ(info.languages[2], "english");
    EXPECT_EQ(info.language_codes[2], "en");
    EXPECT_EQ(info.language_codes[0], "");  // auto
    Synthesizer s(m);
    SynthesisOptions o = m.default_options();
    o.speaker = "ryan";
    o.max_frames = 2;
    o.language = "";
    EXPECT_NE(testing::error_of([&] { s.generate_codes("hi", o); }).find("the language is empty"),
              std::string::npos);
    o.language = "beijing_dialect";
    EXPECT_NE(testing::error_of([&] {
                  s.generate_codes("hi", o);
              }).find("speaker dylan speaks it when the language is auto or chinese"),
              std::string::npos);
    o.language = "Ja";
    EXPECT_EQ(testing::error_of([&] { s.generate_codes("hi", o); }), "(no error)");
    // The offset is one in the caller's text, not in the templated prompt.
    o.language = "english";
    EXPECT_EQ(testing::error_of([&] { s.generate_codes("ab\xff", o); }),
              "the text to speak: invalid UTF-8 at byte offset 2 (byte 0xff)");
    o.instruct = "x\xc3";
    EXPECT_EQ(testing::error_of([&] { s.generate_codes("hi", o); }),
              "the instruction: invalid UTF-8 at byte offset 1 (byte 0xc3)");
}

// A slip in an option's value is reported before the model loads (seconds for the 1.7B), not
// after: here no model can load at all (offline, not in the cache), so an error naming the
// option proves it was checked first.
TEST(CliOptionValues, AreCheckedBeforeTheModelLoads) {
    const std::string batch = tmp("batch.jsonl");
    std::ofstream(batch) << "{\"id\": \"a\", \"text\": \"hi\"}\n";
    const std::string cli =
        "HF_HUB_OFFLINE=1 HF_HUB_CACHE=" + shell_quote(tmp("empty_cache")) + " " + kCli;
    const std::string no_model = " --model no-such-org/no-model ";
    const struct {
        std::string command, expected;
    } cases[] = {
        {"codes" + no_model + "--text hi --out x.npy --seed abc",
         "--seed expects an integer in 0 ... 18446744073709551615, got 'abc'"},
        {"speak" + no_model + "--text hi --out x.wav --subtalker-top-p 0",
         "--subtalker-top-p must be in (0, 1], got '0'"},
        {"speak" + no_model + "--text hi --out x.wav --max-frames 0",
         "--max-frames must be >= 1, got '0'"},
        {"codes" + no_model + "--text hi --out x.npy --voice " + shell_quote(fake_wav()),
         " is an audio file, not a voice file"},
        {"codes" + no_model + "--text hi --out x.npy --kernels exact",
         "--kernels must be fast or reference, got 'exact'"},
        {"speak" + no_model + "--batch " + shell_quote(batch) + " --out-dir " +
             shell_quote(tmp("batch_out")) + " --top-k -1",
         "--top-k must be >= 0, got '-1'"},
        {"speak" + no_model + "--batch " + shell_quote(batch) + " --out-dir " +
             shell_quote(tmp("batch_out")) + " --max-batch 0",
         "--max-batch must be >= 1, got '0'"},
        {"bench" + no_model + "--frames 0", "--frames must be >= 1, got '0'"},
        {"speak" + no_model + "--text hi --out x.wav --codec-conv fast",
         "unknown codec_conv 'fast' (direct or winograd)"},
        {"bench" + no_model + "--runs two", "--runs expects an integer, got 'two'"},
        {"bench" + no_model + "--streams 0", "--streams must be >= 1, got '0'"},
        {"bench" + no_model + "--streams 2 --frames 1", "--frames must be >= 2, got '1'"},
        {"decode" + no_model + "--codes x.npy --out x.wav --threads -1",
         "--threads must be >= 0, got '-1'"},
    };
    for (const auto& c : cases) {
        const auto r = run_shell(cli + c.command);
        EXPECT_EQ(r.exit_code, 1) << c.command << "\n" << r.output;
        EXPECT_NE(r.output.find(c.expected), std::string::npos)
            << c.command << "\nexpected '" << c.expected << "' in: " << r.output;
    }
}

TEST(CliWarnings, RefTextWithXVectorOnlyIsIgnoredAloud) {
    const auto ref = tmp("ref.wav");
    const auto made = run_cli("speak --model " + model("tiny-custom_voice") +
                              " --speaker ryan --greedy --max-frames 20 --text 'Hello there.' "
                              "--out " +
                              shell_quote(ref));
    ASSERT_EQ(made.exit_code, 0) << made.output;
    const auto r =
        run_cli("voice --model " + model("tiny-base") + " --ref-audio " + shell_quote(ref) +
                " --ref-text 'Hello there.' --x-vector-only --out " + shell_quote(tmp("x.voice")));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("qwen3tts: warning: --ref-text is ignored with --x-vector-only (that "
                            "mode uses no transcript)"),
              std::string::npos)
        << r.output;
}

TEST(CliWarnings, FormatAgreeingWithTheExtensionIsAccepted) {
    const auto r = run_cli("speak --model " + model("tiny-custom_voice") +
                           " --speaker ryan --greedy --max-frames 3 --text hi --format wav-f32 "
                           "--out " +
                           shell_quote(tmp("f32.wav")));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(r.output.find("warning"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace qwen3tts
