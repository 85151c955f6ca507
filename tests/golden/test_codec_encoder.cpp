// Codec encoder against the official implementation's outputs (tests/data/golden/<variant>):
// codes of the reference speech clip and of the chirp equal the official
// `Qwen3TTSTokenizer.encode(wav, sr=24000)` exactly; the SEANet, transformer and downsample
// taps match the reference forward hooks; one and two threads and any SEANet chunking give
// the same codes; bad input is a clear error; `qwen3tts encode` writes the same codes.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backend/cpu/cpu_features.hpp"
#include "backend/cpu/mimi_elu.hpp"
#include "core/npy.hpp"
#include "core/thread_pool.hpp"
#include "model/codec_encoder.hpp"
#include "qwen3tts/error.hpp"
#include "support/test_support.hpp"

namespace qwen3tts {
namespace {

std::string codec_dir(const std::string& variant) {
    if (variant.rfind("real-", 0) == 0) return testing::generated_dir() + "/" + variant;
    return testing::model_dir(variant);
}

// Count of differing entries, and the first one as "frame f, codebook q: got a, want b".
std::string code_diff(const std::vector<int64_t>& got, const std::vector<int64_t>& want, int n_q,
                      size_t* n_diff) {
    *n_diff = 0;
    std::string first;
    for (size_t i = 0; i < std::min(got.size(), want.size()); ++i) {
        if (got[i] == want[i]) continue;
        if (++*n_diff == 1)
            first = "frame " + std::to_string(i / size_t(n_q)) + ", codebook " +
                    std::to_string(i % size_t(n_q)) + ": got " + std::to_string(got[i]) +
                    ", want " + std::to_string(want[i]);
    }
    return first;
}

class CodecEncoderGolden : public ::testing::TestWithParam<std::string> {
  protected:
    void SetUp() override {
        const std::string dir = codec_dir(GetParam());
        namespace fs = std::filesystem;
        if (!fs::exists(fs::path(dir) / "speech_tokenizer" / "model.safetensors") &&
            !fs::exists(fs::path(dir) / "model.safetensors"))
            GTEST_SKIP() << "checkpoint not generated: " << dir
                         << " (scripts/make_checkpoint.py --size real-0.6b ...)";
        // One load per variant for the whole suite (the real-size one takes seconds).
        static std::map<std::string, std::shared_ptr<const CodecEncoder>> cache;
        auto& slot = cache[GetParam()];
        if (!slot) slot = CodecEncoder::load(dir);
        encoder_ = slot;
    }

    std::vector<float> audio(const std::string& stem) {
        return testing::golden(GetParam(), stem).to_f32();
    }

    void expect_codes(const std::vector<int64_t>& codes, const std::string& stem,
                      int64_t n_samples) {
        const NpyArray ref = testing::golden(GetParam(), stem);
        ASSERT_EQ(ref.shape.size(), 2u) << stem;
        ASSERT_EQ(ref.shape[1], 16) << stem;
        EXPECT_EQ(ref.shape[0], (n_samples + 1919) / 1920) << stem;
        ASSERT_EQ(int64_t(codes.size()), ref.shape[0] * 16) << stem;
        size_t n_diff = 0;
        const std::string first = code_diff(codes, ref.to_i64(), 16, &n_diff);
        EXPECT_EQ(n_diff, 0u) << stem << ": " << n_diff << " of " << codes.size()
                              << " codes differ; first at " << first;
    }

    std::shared_ptr<const CodecEncoder> encoder_;
};

TEST_P(CodecEncoderGolden, SweepCodesMatchReference) {
    const auto wav = audio("audio_sweep_24k");
    expect_codes(encoder_->encode(wav), "codec_encode_sweep_codes", int64_t(wav.size()));
}

TEST_P(CodecEncoderGolden, SpeechCodesMatchReference) {
    const auto wav = audio("audio_ref_24k");
    expect_codes(encoder_->encode(wav), "codec_encode_ref_codes", int64_t(wav.size()));
}

TEST_P(CodecEncoderGolden, TwoThreadsGiveTheSameCodes) {
    const auto wav = audio("audio_ref_24k");
    ThreadPool pool(2);
    expect_codes(encoder_->encode(wav, {backend::KernelSet::fast, &pool}), "codec_encode_ref_codes",
                 int64_t(wav.size()));
}

TEST_P(CodecEncoderGolden, StageTapsMatchReference) {
    const auto wav = audio("audio_sweep_24k");
    std::map<std::string, std::vector<float>> rows;
    std::map<std::string, int> channels;
    encoder_->encode(wav.data(), int64_t(wav.size()), {},
                     [&](const char* name, const float* data, int64_t n, int ch) {
                         rows[name].assign(data, data + n * ch);
                         channels[name] = ch;
                     });
    // Reference layouts: seanet and downsample [1, C, T] (channels first), transformer
    // [1, T, C].
    for (const char* name : {"seanet", "transformer", "downsample"}) {
        SCOPED_TRACE(name);
        const NpyArray ref = testing::golden(
            GetParam(), std::string("codec_encode_sweep_tap__enc_") + name + "_out");
        ASSERT_EQ(ref.shape.size(), 3u);
        const bool channels_first = std::string(name) != "transformer";
        const int64_t n_ch = channels_first ? ref.shape[1] : ref.shape[2];
        const int64_t n_t = channels_first ? ref.shape[2] : ref.shape[1];
        ASSERT_EQ(channels[name], n_ch);
        ASSERT_EQ(int64_t(rows[name].size()), n_t * n_ch);
        std::vector<float> got = rows[name];
        if (channels_first) {
            for (int64_t t = 0; t < n_t; ++t)
                for (int64_t c = 0; c < n_ch; ++c)
                    got[size_t(c * n_t + t)] = rows[name][size_t(t * n_ch + c)];
        }
        const auto d = testing::compare(got, ref.to_f32());
        EXPECT_LE(d.max_abs, 1e-4 * d.max_ref)
            << "max|diff| " << d.max_abs << " at " << d.argmax << " (max|ref| " << d.max_ref << ")";
    }
}

TEST_P(CodecEncoderGolden, ChunkingAndLengthsAreConsistent) {
    // Small SEANet chunks (one 960-sample step) give the one-shot codes; any length gives
    // ceil(len / 1920) frames, and a prefix's codes depend only on the prefix (causal).
    const auto wav = audio("audio_ref_24k");
    const std::string dir = codec_dir(GetParam());
    CodecEncoderOptions small;
    small.chunk_samples = 960;
    const auto chunked = CodecEncoder::load(dir, small);
    const auto a = encoder_->encode(wav);
    EXPECT_EQ(chunked->encode(wav), a);
    for (int64_t len : {1, 959, 960, 1919, 1920, 1921, 3841}) {
        const std::vector<float> part(wav.begin(), wav.begin() + len);
        const auto codes = encoder_->encode(part);
        EXPECT_EQ(int64_t(codes.size()), (len + 1919) / 1920 * 16) << "len " << len;
    }
    // Whole frames of a prefix that ends on a frame boundary are final.
    const std::vector<float> prefix(wav.begin(), wav.begin() + 1920 * 10);
    const auto p = encoder_->encode(prefix);
    EXPECT_EQ(p, std::vector<int64_t>(a.begin(), a.begin() + 10 * 16));
}

TEST_P(CodecEncoderGolden, BadAudioIsAClearError) {
    try {
        encoder_->encode(std::vector<float>{});
        FAIL() << "empty audio accepted";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
        EXPECT_NE(std::string(e.what()).find("empty"), std::string::npos) << e.what();
    }
    std::vector<float> wav(4000, 0.1f);
    wav[1234] = std::numeric_limits<float>::quiet_NaN();
    try {
        encoder_->encode(wav);
        FAIL() << "NaN accepted";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
        EXPECT_NE(std::string(e.what()).find("1234"), std::string::npos) << e.what();
    }
    wav[1234] = std::numeric_limits<float>::infinity();
    EXPECT_THROW(encoder_->encode(wav), Error);
}

INSTANTIATE_TEST_SUITE_P(Variants, CodecEncoderGolden,
                         ::testing::Values("tiny-base", "tiny-custom_voice", "tiny-voice_design",
                                           "real-0.6b-custom_voice"),
                         [](const auto& param_info) {
                             std::string n = param_info.param;
                             for (char& ch : n)
                                 if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                             return n;
                         });

// The vectorised ELU of the SEANet against libm's expm1 over the whole negative range.
TEST(CodecEncoderElu, MatchesExpm1) {
    std::vector<float> x;
    for (float v = -100.0f; v < 3.0f; v += 0.00037f) x.push_back(v);
    for (float v : {0.0f, -0.0f, -1e-30f, 1e-30f, -0.5f, 0.5f, -87.0f, -88.0f, -1e4f})
        x.push_back(v);
    for (cpu::Isa level : {cpu::Isa::avx512, cpu::Isa::avx2, cpu::Isa::generic}) {
        if (!cpu::set_max_isa(level)) continue;  // the CPU lacks it
        const char* isa = cpu::isa_name(level);
        std::vector<float> y(x.size());
        cpu::elu(x.data(), int64_t(x.size()), y.data());
        double worst = 0;
        size_t at = 0;
        for (size_t i = 0; i < x.size(); ++i) {
            const double want = x[i] > 0 ? double(x[i]) : std::expm1(double(x[i]));
            const double err = std::fabs(y[i] - want) / std::max(std::fabs(want), 1e-30);
            if (err > worst) worst = err, at = i;
        }
        EXPECT_LE(worst, 3e-7) << isa << ": x = " << x[at];
    }
    cpu::reset_max_isa();
}

TEST(CodecEncoderConfig, MissingFieldIsNamed) {
    try {
        parse_codec_encoder_config(R"({"encoder_config": {"sampling_rate": 24000}})", "cfg.json");
        FAIL() << "accepted";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::format);
        EXPECT_NE(std::string(e.what()).find("cfg.json: encoder_config."), std::string::npos)
            << e.what();
        EXPECT_NE(std::string(e.what()).find("missing"), std::string::npos) << e.what();
    }
    EXPECT_THROW(parse_codec_encoder_config(R"({"decoder_config": {}})", "cfg.json"), Error);
}

TEST(CodecEncoderConfig, ReleasedShapeFromTinyConfig) {
    const auto c = load_codec_encoder_config(testing::model_dir("tiny-base") +
                                             "/speech_tokenizer/config.json");
    EXPECT_EQ(c.samples_per_frame(), 1920);
    EXPECT_EQ(c.downsample_kernel(), 4);
    EXPECT_EQ(c.encoder_strides(), (std::vector<int>{4, 5, 6, 8}));
    EXPECT_EQ(c.n_valid_quantizers, 16);
    EXPECT_EQ(c.n_semantic, 1);
}

// `qwen3tts encode` on the tiny checkpoint writes the reference codes as int64 [frames, 16].
TEST(CodecEncoderCli, EncodeWritesReferenceCodes) {
    const std::string wav_path = testing::tmp_dir() + "/encoder_cli_ref.wav";
    const std::string out = testing::tmp_dir() + "/encoder_cli_codes.npy";
    // 16-bit WAV of the reference clip, written by hand (the clip came from a 16-bit file, so
    // the round trip is exact).
    const auto wav = testing::golden("tiny-base", "audio_ref_24k").to_f32();
    {
        std::FILE* f = std::fopen(wav_path.c_str(), "wb");
        ASSERT_NE(f, nullptr);
        auto u32 = [&](uint32_t v) { std::fwrite(&v, 4, 1, f); };
        auto u16 = [&](uint16_t v) { std::fwrite(&v, 2, 1, f); };
        const uint32_t data_bytes = uint32_t(wav.size() * 2);
        std::fwrite("RIFF", 1, 4, f);
        u32(36 + data_bytes);
        std::fwrite("WAVEfmt ", 1, 8, f);
        u32(16);
        u16(1);
        u16(1);
        u32(24000);
        u32(48000);
        u16(2);
        u16(16);
        std::fwrite("data", 1, 4, f);
        u32(data_bytes);
        for (float s : wav) {
            const long v = std::lround(double(s) * 32768.0);
            u16(uint16_t(int16_t(std::max(-32768L, std::min(32767L, v)))));
        }
        std::fclose(f);
    }
    std::filesystem::remove(out);
    const auto r = testing::run_cli(
        "encode --model " + testing::shell_quote(testing::model_dir("tiny-base")) + " --audio " +
        testing::shell_quote(wav_path) + " --out " + testing::shell_quote(out));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const NpyArray got = read_npy(out);
    const NpyArray ref = testing::golden("tiny-base", "codec_encode_ref_codes");
    EXPECT_EQ(got.shape, ref.shape);
    EXPECT_EQ(got.descr, "<i8");
    EXPECT_EQ(got.to_i64(), ref.to_i64());

    const auto bad =
        testing::run_cli("encode --model " + testing::shell_quote(testing::model_dir("tiny-base")) +
                         " --audio /nonexistent.wav --out " + testing::shell_quote(out));
    EXPECT_NE(bad.exit_code, 0);
    EXPECT_NE(bad.output.find("/nonexistent.wav"), std::string::npos) << bad.output;
}

}  // namespace
}  // namespace qwen3tts
