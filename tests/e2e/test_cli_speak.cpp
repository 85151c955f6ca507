// `speak` and `decode` as a user runs them: every output format decodes back with an
// independent reader (sox/soxi) to the right rate and length; streaming to stdout; the
// waveform equals the official one; bad input gives a clear error and leaves no file behind.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

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
    return testing::tmp_dir() + "/speak_" + name;
}
bool exists(const std::string& p) {
    struct stat st;
    return ::stat(p.c_str(), &st) == 0;
}

// Max |diff| from the official waveform: measured 2.3e-6 (avx512, avx2) and 2.5e-6 (generic),
// f32 rounding order; the codec's own golden tests hold 1e-4.
constexpr double kWaveTol = 2e-5;

const std::string kSpeak = "speak --model " + model("tiny-custom_voice") +
                           " --speaker ryan --language english --greedy --max-frames 10 "
                           "--text 'Hello world, this is a test.'";

TEST(CliSpeak, WaveformEqualsTheOfficialOne) {
    const std::string out = out_path("ref.npy");
    const auto r = run_cli(kSpeak + " --out " + shell_quote(out));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("time to first audio"), std::string::npos) << r.output;
    const auto wav = read_npy(out).to_f32();
    const auto ref = testing::golden("tiny-custom_voice", "cv_en_ryan__wav").to_f32();
    ASSERT_EQ(wav.size(), ref.size());
    EXPECT_LE(testing::compare(wav, ref).max_abs, kWaveTol);
}

TEST(CliSpeak, EverySimdLevelFromTheEnvironmentGivesTheOfficialWaveform) {
    const auto ref = testing::golden("tiny-custom_voice", "cv_en_ryan__wav").to_f32();
    for (const std::string level : {"avx2", "generic"}) {
        const std::string out = out_path("isa_" + level + ".npy");
        const auto r = run_shell("QWEN3TTS_ISA=" + level + " " + shell_quote(QWEN3TTS_CLI) + " " +
                                 kSpeak + " --out " + shell_quote(out));
        if (r.output.find("but this CPU supports at most") != std::string::npos) continue;
        ASSERT_EQ(r.exit_code, 0) << level << ": " << r.output;
        const auto wav = read_npy(out).to_f32();
        ASSERT_EQ(wav.size(), ref.size()) << level;
        EXPECT_LE(testing::compare(wav, ref).max_abs, kWaveTol) << level;
    }
}

TEST(CliSpeak, UnknownSimdLevelInTheEnvironmentIsAnError) {
    const auto r = run_shell("QWEN3TTS_ISA=avx3 " + shell_quote(QWEN3TTS_CLI) + " " + kSpeak +
                             " --out " + shell_quote(out_path("isa_bad.npy")));
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("QWEN3TTS_ISA=avx3 is not a known level (use generic, avx2 or avx512)"),
              std::string::npos)
        << r.output;
}

TEST(CliSpeak, EveryFormatDecodesBackToTheRightRateAndLength) {
    // 10 frames = 19200 samples at 24 kHz. Lossy codecs add their documented delay/padding.
    struct {
        std::string ext;
        bool exact;
    } formats[] = {{"wav", true}, {"flac", true}, {"mp3", false}};
    for (const auto& f : formats) {
        const std::string out = out_path("fmt." + f.ext);
        const auto r = run_cli(kSpeak + " --out " + shell_quote(out));
        ASSERT_EQ(r.exit_code, 0) << f.ext << ": " << r.output;
        const auto rate = run_shell("soxi -r " + shell_quote(out));
        EXPECT_EQ(rate.output, "24000\n") << f.ext;
        const auto len = run_shell("soxi -s " + shell_quote(out));
        const long n = std::stol(len.output);
        if (f.exact)
            EXPECT_EQ(n, 19200) << f.ext;
        else
            EXPECT_TRUE(n >= 19200 && n <= 19200 + 3 * 1152) << f.ext << ": " << n;
    }
    // Ogg/Opus: Debian's sox cannot read Opus; the Ogg header and granule positions are checked
    // by the audio layer's tests, here only that a valid Ogg stream came out.
    const std::string ogg = out_path("fmt.ogg");
    auto r = run_cli(kSpeak + " --out " + shell_quote(ogg));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto head = run_shell("head -c 36 " + shell_quote(ogg) + " | od -c | head -3");
    EXPECT_NE(head.output.find("O   g   g   S"), std::string::npos) << head.output;
    EXPECT_NE(head.output.find("O   p   u   s"), std::string::npos) << head.output;
    // Raw PCM: 2 bytes per sample, no header.
    const std::string pcm = out_path("fmt.pcm");
    r = run_cli(kSpeak + " --out " + shell_quote(pcm));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    struct stat st;
    ASSERT_EQ(::stat(pcm.c_str(), &st), 0);
    EXPECT_EQ(st.st_size, 19200 * 2);
}

TEST(CliSpeak, StreamsToStdoutAsWav) {
    const std::string out = out_path("stream.wav");
    const auto r = run_shell(shell_quote(QWEN3TTS_CLI) + " " + kSpeak +
                             " --stream --out - | sox -t wav - " + shell_quote(out));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(run_shell("soxi -s " + shell_quote(out)).output, "19200\n");
    EXPECT_EQ(run_shell("soxi -r " + shell_quote(out)).output, "24000\n");
}

TEST(CliDecode, CodesToTheOfficialWaveform) {
    const std::string codes = testing::golden_dir("tiny-custom_voice") + "/codec_rand_codes.npy";
    const std::string out = out_path("decoded.npy");
    const auto r = run_cli("decode --model " + model("tiny-custom_voice") + " --codes " +
                           shell_quote(codes) + " --out " + shell_quote(out));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto wav = read_npy(out).to_f32();
    const auto ref = testing::golden("tiny-custom_voice", "codec_decode_wav").to_f32();
    ASSERT_EQ(wav.size(), ref.size());
    EXPECT_LE(testing::compare(wav, ref).max_abs, 1e-4);
}

TEST(CliDecode, BadCodesAndPathsAreClearErrorsAndLeaveNoFile) {
    auto write_codes = [](const std::string& name, std::vector<int64_t> v,
                          std::vector<int64_t> shape) {
        const std::string p = out_path(name);
        write_npy_i64(p, v.data(), shape);
        return p;
    };
    std::vector<int64_t> bad(32, 5);
    bad[16 + 3] = 2048;
    const std::string out = out_path("never.wav");
    auto r =
        run_cli("decode --model " + model("tiny-custom_voice") + " --codes " +
                shell_quote(write_codes("bad.npy", bad, {2, 16})) + " --out " + shell_quote(out));
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.output.find("code 2048 at frame 1, codebook 3 is outside [0, 2048)"),
              std::string::npos)
        << r.output;
    EXPECT_FALSE(exists(out));

    r = run_cli("decode --model " + model("tiny-custom_voice") + " --codes " +
                shell_quote(write_codes("shape.npy", std::vector<int64_t>(30, 1), {2, 15})) +
                " --out " + shell_quote(out));
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.output.find("codes must have shape [frames, 16], got [2, 15]"), std::string::npos)
        << r.output;
    EXPECT_FALSE(exists(out));

    r = run_cli(kSpeak + " --out /nonexistent/dir/x.wav");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.output.find("/nonexistent/dir/x.wav"), std::string::npos) << r.output;

    r = run_cli(kSpeak + " --out " + shell_quote(out_path("x.xyz")));
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.output.find("xyz"), std::string::npos) << r.output;
    r = run_cli(kSpeak + " --format aiff --out " + shell_quote(out));
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.output.find("aiff"), std::string::npos) << r.output;
    EXPECT_FALSE(exists(out));

    // A failure after the output was opened leaves neither the file nor its temporary.
    r = run_cli("speak --model " + model("tiny-custom_voice") +
                " --speaker nobody --text hi --out " + shell_quote(out));
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_FALSE(exists(out));
    EXPECT_EQ(run_shell("ls " + shell_quote(testing::tmp_dir()) + " | grep -c 'never.wav'").output,
              "0\n");
}

}  // namespace
}  // namespace qwen3tts
