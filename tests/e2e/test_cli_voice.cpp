// Voice cloning from the command line (Base models): reference audio → `.voice` file →
// speech, in-context and x-vector-only, against the official codes; and one clear error for
// each kind of bad reference.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "audio/audio.hpp"
#include "core/npy.hpp"
#include "support/test_support.hpp"

namespace qwen3tts {
namespace {

using testing::run_cli;
using testing::run_shell;
using testing::shell_quote;

std::string tmp(const std::string& name) {
    return testing::tmp_dir() + "/voice_" + name;
}
std::string base_model() {
    return shell_quote(testing::model_dir("tiny-base"));
}
const std::string kFox = "The quick brown fox jumps over the lazy dog.";
const std::string kHello = "Hello world, this is a test.";

// The reference clip of the golden data as a 16-bit WAV (the official run read the same
// 16-bit file, so the round trip is exact).
std::string reference_wav() {
    const std::string path = tmp("ref.wav");
    write_audio_file(path, AudioFormat::wav_pcm16,
                     testing::golden("tiny-base", "audio_ref_24k").to_f32(), 24000);
    return path;
}

std::string wav_of(const std::string& name, const std::vector<float>& samples, int rate) {
    const std::string path = tmp(name);
    write_audio_file(path, AudioFormat::wav_pcm16, samples, rate);
    return path;
}

std::vector<int64_t> codes_of(const std::string& args, const std::string& name) {
    const std::string out = tmp(name);
    const auto r = run_cli("codes --model " + base_model() +
                           " --language english --greedy "
                           "--max-frames 10 --text " +
                           shell_quote(kHello) + " " + args + " --out " + shell_quote(out));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return r.exit_code == 0 ? read_npy(out).to_i64() : std::vector<int64_t>{};
}

TEST(CliVoice, InContextCloneMatchesTheOfficialCodes) {
    const auto codes =
        codes_of("--ref-audio " + shell_quote(reference_wav()) + " --ref-text " + shell_quote(kFox),
                 "icl.npy");
    EXPECT_EQ(codes, testing::golden("tiny-base", "vc_icl_en__codes").to_i64());
}

TEST(CliVoice, XVectorOnlyCloneMatchesTheOfficialCodes) {
    const auto codes =
        codes_of("--ref-audio " + shell_quote(reference_wav()) + " --x-vector-only", "xvec.npy");
    EXPECT_EQ(codes, testing::golden("tiny-base", "vc_xvec_en__codes").to_i64());
}

TEST(CliVoice, SavedVoiceGivesTheSameFramesAsTheReference) {
    const std::string ref = reference_wav();
    for (const bool icl : {true, false}) {
        const std::string voice = tmp(icl ? "icl.voice" : "xvec.voice");
        const std::string mode = icl ? "--ref-text " + shell_quote(kFox) : "--x-vector-only";
        const auto r = run_cli("voice --model " + base_model() + " --ref-audio " +
                               shell_quote(ref) + " " + mode + " --out " + shell_quote(voice));
        ASSERT_EQ(r.exit_code, 0) << r.output;
        const auto direct = codes_of("--ref-audio " + shell_quote(ref) + " " + mode, "direct.npy");
        const auto saved = codes_of("--voice " + shell_quote(voice), "saved.npy");
        EXPECT_EQ(direct, saved) << (icl ? "in-context" : "x-vector only");
        EXPECT_FALSE(saved.empty());
    }
    // The file is a documented safetensors file.
    const auto head = run_shell("head -c 400 " + shell_quote(tmp("icl.voice")));
    EXPECT_NE(head.output.find("\"x_vector\""), std::string::npos);
    EXPECT_NE(head.output.find("\"ref_codes\""), std::string::npos);
    EXPECT_NE(head.output.find("qwen3tts-voice"), std::string::npos);
}

TEST(CliVoice, SpeakWithAResampledReference) {
    // A 44.1 kHz reference is resampled to 24 kHz (soxr) before the encoders: speech comes out.
    const auto ref24 = testing::golden("tiny-base", "audio_ref_24k").to_f32();
    const std::string ref44 = wav_of("ref44.wav", resample(ref24, 24000, 44100), 44100);
    const std::string out = tmp("clone.wav");
    const auto r = run_cli("speak --model " + base_model() + " --ref-audio " + shell_quote(ref44) +
                           " --ref-text " + shell_quote(kFox) + " --max-frames 8 --text " +
                           shell_quote(kHello) + " --out " + shell_quote(out));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(run_shell("soxi -r " + shell_quote(out)).output, "24000\n");
}

struct BadVoice {
    std::string name, args, expected;
};

class CliVoiceErrors : public ::testing::TestWithParam<BadVoice> {};

TEST_P(CliVoiceErrors, OneClearLine) {
    const auto r = run_cli(GetParam().args);
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find(GetParam().expected), std::string::npos)
        << "expected '" << GetParam().expected << "' in: " << r.output;
}

std::string voice_args(const std::string& ref, const std::string& extra = "--x-vector-only") {
    return "voice --model " + base_model() + " --ref-audio " + shell_quote(ref) + " " + extra +
           " --out " + shell_quote(tmp("bad.voice"));
}

std::vector<BadVoice> bad_voices() {
    const std::vector<float> half_second(12000, 0.1f);
    std::vector<float> silence(48000, 0.0f), long_tone(24000 * 5);
    for (size_t i = 0; i < long_tone.size(); ++i)
        long_tone[i] = 0.3f * float(std::sin(0.05 * double(i)));
    return {
        {"missing_file", voice_args("/nonexistent/ref.wav"), "/nonexistent/ref.wav"},
        {"not_audio", voice_args(testing::model_dir("tiny-base") + "/config.json"), "config.json"},
        // Neutral file names: the expected text must come from the reason, not the path.
        {"too_short", voice_args(wav_of("ref_a.wav", half_second, 24000)),
         tmp("ref_a.wav") + " is 0.50 s long; voice cloning needs at least 1.00 s"},
        {"silent", voice_args(wav_of("ref_b.wav", silence, 24000)),
         tmp("ref_b.wav") + " (2.00 s) is silent: peak 0 < 1e-4"},
        {"too_long",
         voice_args(wav_of("ref_c.wav", long_tone, 24000), "--x-vector-only --max-seconds 3"),
         tmp("ref_c.wav") + ": audio is 5.00 s long (from its header); the limit is 3.00 s"},
        {"icl_without_text", voice_args(wav_of("tone.wav", long_tone, 24000), ""),
         "needs the transcript of the reference audio (--ref-text)"},
        {"not_a_voice_file",
         "codes --model " + base_model() + " --voice " +
             shell_quote(testing::model_dir("tiny-base") + "/model.safetensors") +
             " --text hi --out " + shell_quote(tmp("x.npy")),
         "not a qwen3tts voice file"},
        {"clone_with_custom_voice_model",
         "voice --model " + shell_quote(testing::model_dir("tiny-custom_voice")) + " --ref-audio " +
             shell_quote(wav_of("tone2.wav", long_tone, 24000)) + " --x-vector-only --out " +
             shell_quote(tmp("bad.voice")),
         "voice cloning needs a Base model"},
    };
}

INSTANTIATE_TEST_SUITE_P(Cases, CliVoiceErrors, ::testing::ValuesIn(bad_voices()),
                         [](const ::testing::TestParamInfo<BadVoice>& p) { return p.param.name; });

// Its own voice file: one made by another test may not exist yet when ctest runs this alone.
TEST(CliVoice, VoiceFileWithACustomVoiceModelIsRefused) {
    const std::string voice = tmp("for_custom.voice");
    const auto made =
        run_cli("voice --model " + base_model() + " --ref-audio " + shell_quote(reference_wav()) +
                " --x-vector-only --out " + shell_quote(voice));
    ASSERT_EQ(made.exit_code, 0) << made.output;
    const auto r = run_cli("codes --model " + shell_quote(testing::model_dir("tiny-custom_voice")) +
                           " --speaker ryan --voice " + shell_quote(voice) + " --text hi --out " +
                           shell_quote(tmp("x.npy")));
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("voices clone with Base models"), std::string::npos) << r.output;
}

TEST(CliVoice, VoiceMadeForAnotherModelSizeIsRefused) {
    const std::string ref = reference_wav();
    const std::string voice = tmp("sized.voice");
    ASSERT_EQ(run_cli("voice --model " + base_model() + " --ref-audio " + shell_quote(ref) +
                      " --x-vector-only --out " + shell_quote(voice))
                  .exit_code,
              0);
    // The same checkpoint relabelled as another size.
    const std::string dir = testing::tmp_dir() + "/ckpt_base_1b7";
    run_shell("rm -rf " + shell_quote(dir) + " && mkdir -p " + shell_quote(dir) + " && for f in " +
              shell_quote(testing::model_dir("tiny-base")) + "/*; do ln -s \"$f\" " +
              shell_quote(dir) + "/; done && rm " + shell_quote(dir + "/config.json"));
    std::ifstream in(testing::model_dir("tiny-base") + "/config.json");
    auto cfg = nlohmann::json::parse(in);
    cfg["tts_model_size"] = "1b7";
    std::ofstream(dir + "/config.json") << cfg.dump();
    const auto r = run_cli("codes --model " + shell_quote(dir) + " --voice " + shell_quote(voice) +
                           " --text hi --out " + shell_quote(tmp("x.npy")));
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("this voice was made for a tiny model"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace qwen3tts
