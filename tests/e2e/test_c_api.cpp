// The C API's frame: version, per-thread errors, NULL arguments, versioned structs
// (struct_size), *_init defaults, models (info, tokenizer, codec decode/encode) and audio files,
// each checked against the C++ API it wraps.
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstring>
#include <thread>

#include "audio/audio.hpp"
#include "e2e/test_c_api_support.hpp"

namespace qwen3tts {
namespace {

using ctest::failure;
using ctest::load_model;
using ctest::take;

std::string tmp(const std::string& name) {
    return testing::tmp_dir() + "/c_api_" + name;
}

bool contains(const std::string& s, const std::string& part) {
    return s.find(part) != std::string::npos;
}

TEST(CApi, VersionIsTheLibraryVersionString) {
    const char* v = qwen3tts_version();
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(std::string(v), version_string());
    EXPECT_EQ(qwen3tts_version(), v) << "the static string moved";
}

TEST(CApi, LastErrorIsPerThreadAndClearedBySuccess) {
    qwen3tts_model* m = nullptr;
    ASSERT_EQ(qwen3tts_model_load("/nonexistent/model-a", nullptr, &m), QWEN3TTS_ERR_IO);
    EXPECT_EQ(m, nullptr);
    const std::string mine = qwen3tts_last_error();
    EXPECT_TRUE(contains(mine, "/nonexistent/model-a")) << mine;

    std::string other_before, other_after;
    std::thread t([&] {
        other_before = qwen3tts_last_error();
        qwen3tts_model* m2 = nullptr;
        EXPECT_EQ(qwen3tts_model_load(nullptr, nullptr, &m2), QWEN3TTS_ERR_INVALID_ARGUMENT);
        other_after = qwen3tts_last_error();
    });
    t.join();
    EXPECT_EQ(other_before, "") << "a fresh thread sees another thread's error";
    EXPECT_EQ(other_after, "qwen3tts_model_load: model is NULL");
    EXPECT_EQ(std::string(qwen3tts_last_error()), mine) << "another thread's error leaked in";

    const auto model = load_model("tiny-custom_voice");
    EXPECT_STREQ(qwen3tts_last_error(), "");
}

TEST(CApi, InitFunctionsWriteTheDefaults) {
    qwen3tts_load_options lo;
    std::memset(&lo, 0x5a, sizeof lo);
    qwen3tts_load_options_init(&lo, sizeof lo);
    EXPECT_EQ(lo.struct_size, sizeof lo);
    EXPECT_EQ(lo.pretokenizer, nullptr);
    EXPECT_EQ(lo.mmap, 1);
    EXPECT_EQ(lo.quant, nullptr);
    EXPECT_EQ(lo.copy_frame_weights, 1);

    qwen3tts_clone_options co;
    std::memset(&co, 0x5a, sizeof co);
    qwen3tts_clone_options_init(&co, sizeof co);
    EXPECT_EQ(co.struct_size, sizeof co);
    EXPECT_EQ(co.ref_text, nullptr);
    EXPECT_EQ(co.x_vector_only, 0);
    EXPECT_EQ(co.max_seconds, 60.0);

    // Without a model: the released checkpoints' generation_config.json.
    qwen3tts_options o;
    std::memset(&o, 0x5a, sizeof o);
    qwen3tts_options_init(nullptr, &o, sizeof o);
    EXPECT_EQ(o.struct_size, sizeof o);
    EXPECT_EQ(o.language, nullptr);
    EXPECT_EQ(o.speaker, nullptr);
    EXPECT_EQ(o.instruct, nullptr);
    EXPECT_EQ(o.voice, nullptr);
    EXPECT_EQ(o.text_layout, nullptr);
    EXPECT_EQ(o.codec_decode, nullptr);
    EXPECT_EQ(o.max_frames, 0);
    EXPECT_EQ(o.has_seed, 0);
    EXPECT_EQ(o.seed, 0u);
    for (const qwen3tts_sampling* s : {&o.talker, &o.predictor}) {
        EXPECT_EQ(s->do_sample, 1);
        EXPECT_FLOAT_EQ(s->temperature, 0.9f);
        EXPECT_EQ(s->top_k, 50);
        EXPECT_FLOAT_EQ(s->top_p, 1.0f);
    }
    EXPECT_FLOAT_EQ(o.talker.repetition_penalty, 1.05f);
    EXPECT_FLOAT_EQ(o.predictor.repetition_penalty, 1.0f);

    // With a model: its generation_config.json, as Model::default_options reads it.
    const auto model = load_model("tiny-voice_design");
    const SynthesisOptions d =
        Model::load(testing::model_dir("tiny-voice_design")).default_options();
    qwen3tts_options_init(model.get(), &o, sizeof o);
    EXPECT_EQ(o.talker.do_sample, d.talker.do_sample ? 1 : 0);
    EXPECT_EQ(o.talker.temperature, d.talker.temperature);
    EXPECT_EQ(o.talker.top_k, d.talker.top_k);
    EXPECT_EQ(o.talker.top_p, d.talker.top_p);
    EXPECT_EQ(o.talker.repetition_penalty, d.talker.repetition_penalty);
    EXPECT_EQ(o.predictor.temperature, d.predictor.temperature);
    EXPECT_EQ(o.predictor.top_k, d.predictor.top_k);
    EXPECT_EQ(o.max_frames, 0);

    qwen3tts_options_init(nullptr, nullptr, sizeof o);  // ignored
    qwen3tts_load_options_init(nullptr, sizeof lo);
    qwen3tts_clone_options_init(nullptr, sizeof co);
}

// An older program's struct is shorter: init must not write past it.
TEST(CApi, InitWritesOnlyWithinTheCallersSize) {
    const size_t cut = offsetof(qwen3tts_options, max_frames);
    unsigned char buf[sizeof(qwen3tts_options) + 8];
    std::memset(buf, 0xab, sizeof buf);
    qwen3tts_options_init(nullptr, reinterpret_cast<qwen3tts_options*>(buf), cut);
    size_t size = 0;
    std::memcpy(&size, buf, sizeof size);
    EXPECT_EQ(size, cut);
    for (size_t i = cut; i < sizeof buf; ++i) ASSERT_EQ(buf[i], 0xab) << "byte " << i;
    qwen3tts_options o;
    std::memcpy(&o, buf, sizeof o);
    EXPECT_EQ(o.talker.top_k, 50);  // within the cut: written

    // Too small to hold struct_size: nothing is written.
    std::memset(buf, 0xab, sizeof buf);
    qwen3tts_options_init(nullptr, reinterpret_cast<qwen3tts_options*>(buf), 4);
    for (size_t i = 0; i < sizeof buf; ++i) ASSERT_EQ(buf[i], 0xab) << "byte " << i;
}

TEST(CApi, StructSizeZeroIsAnError) {
    qwen3tts_model* m = nullptr;
    qwen3tts_load_options lo{};
    EXPECT_EQ(qwen3tts_model_load(testing::model_dir("tiny-custom_voice").c_str(), &lo, &m),
              QWEN3TTS_ERR_INVALID_ARGUMENT);
    EXPECT_STREQ(qwen3tts_last_error(),
                 "qwen3tts_load_options: struct_size not set (use qwen3tts_load_options_init)");
    EXPECT_EQ(m, nullptr);

    const auto model = load_model("tiny-custom_voice");
    qwen3tts_model_info info{};
    EXPECT_EQ(qwen3tts_model_get_info(model.get(), &info), QWEN3TTS_ERR_INVALID_ARGUMENT);
    EXPECT_STREQ(
        qwen3tts_last_error(),
        "qwen3tts_model_info: struct_size not set (set it to sizeof(qwen3tts_model_info))");
    EXPECT_EQ(info.dir, nullptr);
}

TEST(CApi, ShortModelInfoLeavesLaterFieldsAlone) {
    const auto model = load_model("tiny-custom_voice");
    qwen3tts_model_info info;
    std::memset(&info, 0x5a, sizeof info);
    info.struct_size = offsetof(qwen3tts_model_info, n_languages);
    ASSERT_EQ(qwen3tts_model_get_info(model.get(), &info), QWEN3TTS_OK) << qwen3tts_last_error();
    EXPECT_STREQ(info.type, "custom_voice");
    EXPECT_EQ(info.n_speakers, 9u);
    qwen3tts_model_info untouched;
    std::memset(&untouched, 0x5a, sizeof untouched);
    EXPECT_EQ(std::memcmp(reinterpret_cast<const char*>(&info) + info.struct_size,
                          reinterpret_cast<const char*>(&untouched) + info.struct_size,
                          sizeof info - info.struct_size),
              0);
}

void expect_info_matches(const std::string& name) {
    SCOPED_TRACE(name);
    const Model cpp = Model::load(testing::model_dir(name));
    const ModelInfo want = cpp.info();
    const auto model = load_model(name);
    qwen3tts_model_info info{};
    info.struct_size = sizeof info;
    ASSERT_EQ(qwen3tts_model_get_info(model.get(), &info), QWEN3TTS_OK) << qwen3tts_last_error();
    EXPECT_EQ(info.dir, want.dir);
    EXPECT_EQ(info.type, want.type);
    EXPECT_EQ(info.size, want.size);
    EXPECT_EQ(info.hidden_size, want.hidden_size);
    EXPECT_EQ(info.talker_layers, want.talker_layers);
    auto strings = [](const char* const* p, size_t n) {
        return std::vector<std::string>(p, p + n);
    };
    EXPECT_EQ(strings(info.speakers, info.n_speakers), want.speakers);
    EXPECT_EQ(strings(info.speaker_dialects, info.n_speakers), want.speaker_dialects);
    EXPECT_EQ(strings(info.languages, info.n_languages), want.languages);
    EXPECT_EQ(strings(info.language_codes, info.n_languages), want.language_codes);
    EXPECT_STREQ(info.quant, "bf16");
    EXPECT_EQ(strings(info.dialects, info.n_dialects), want.dialects);
    EXPECT_EQ(info.takes_instruction, want.takes_instruction ? 1 : 0);
    EXPECT_EQ(info.weight_bytes, want.weight_bytes);
    EXPECT_EQ(info.n_codebook, want.n_codebook);
    EXPECT_EQ(info.codebook_size, want.codebook_size);
    EXPECT_EQ(info.sample_rate, cpp.sample_rate());

    // The strings belong to the model: a second call hands out the same ones.
    qwen3tts_model_info again{};
    again.struct_size = sizeof again;
    ASSERT_EQ(qwen3tts_model_get_info(model.get(), &again), QWEN3TTS_OK);
    EXPECT_EQ(again.dir, info.dir);
    EXPECT_EQ(again.languages, info.languages);
}

TEST(CApi, ModelInfoEqualsTheCppInfo) {
    expect_info_matches("tiny-custom_voice");
    expect_info_matches("tiny-voice_design");
    expect_info_matches("tiny-base");
}

TEST(CApi, ModelInfoNamesSpeakersWithTheirDialects) {
    const auto model = load_model("tiny-custom_voice");
    qwen3tts_model_info info{};
    info.struct_size = sizeof info;
    ASSERT_EQ(qwen3tts_model_get_info(model.get(), &info), QWEN3TTS_OK);
    bool found = false;
    for (size_t i = 0; i < info.n_speakers; ++i)
        if (std::string(info.speakers[i]) == "dylan") {
            EXPECT_STREQ(info.speaker_dialects[i], "beijing_dialect");
            found = true;
        }
    EXPECT_TRUE(found);
    EXPECT_EQ(info.sample_rate, 24000);
    EXPECT_EQ(info.n_codebook, 16);
}

TEST(CApi, TokenizeEqualsTheCppTokenizer) {
    const Model cpp = Model::load(testing::model_dir("tiny-custom_voice"));
    const auto model = load_model("tiny-custom_voice");
    for (const std::string text :
         {"Hello world, this is a test.", "你好，世界！ 123 émoji 🎉", ""}) {
        int32_t* ids = nullptr;
        size_t n = 0;
        ASSERT_EQ(qwen3tts_model_tokenize(model.get(), text.c_str(), &ids, &n), QWEN3TTS_OK)
            << qwen3tts_last_error();
        ASSERT_NE(ids, nullptr);
        EXPECT_EQ(take(ids, n), cpp.tokenize(text)) << text;
    }
}

TEST(CApi, LoadOptionsReachTheLoader) {
    qwen3tts_load_options lo;
    qwen3tts_load_options_init(&lo, sizeof lo);
    lo.pretokenizer = "qwen2";
    lo.mmap = 0;
    qwen3tts_model* m = nullptr;
    ASSERT_EQ(qwen3tts_model_load(testing::model_dir("tiny-custom_voice").c_str(), &lo, &m),
              QWEN3TTS_OK)
        << qwen3tts_last_error();
    const ctest::CModel model(m);
    LoadOptions o;
    o.pretokenizer = "qwen2";
    o.mmap = false;
    const Model cpp = Model::load(testing::model_dir("tiny-custom_voice"), o);
    // The two pre-tokenisers split a lower→upper case boundary differently (docs/tokenizer.md).
    const std::string text = "Call getUserById on my iPhone";
    int32_t* ids = nullptr;
    size_t n = 0;
    ASSERT_EQ(qwen3tts_model_tokenize(model.get(), text.c_str(), &ids, &n), QWEN3TTS_OK);
    const std::vector<int32_t> qwen2 = take(ids, n);
    EXPECT_EQ(qwen2, cpp.tokenize(text));
    LoadOptions mistral;
    mistral.pretokenizer = "mistral_fixed";
    EXPECT_NE(qwen2, Model::load(testing::model_dir("tiny-custom_voice"), mistral).tokenize(text));

    lo.pretokenizer = "bogus";
    EXPECT_EQ(qwen3tts_model_load(testing::model_dir("tiny-custom_voice").c_str(), &lo, &m),
              QWEN3TTS_ERR_INVALID_ARGUMENT);
    EXPECT_TRUE(contains(qwen3tts_last_error(), "unknown pretokenizer 'bogus'"))
        << qwen3tts_last_error();
    EXPECT_EQ(m, nullptr);
}

TEST(CApi, QuantOptionReachesTheLoader) {
    qwen3tts_load_options lo;
    qwen3tts_load_options_init(&lo, sizeof lo);
    lo.quant = "talker=q8";  // the tiny predictor is narrower than one block of 32
    qwen3tts_model* m = nullptr;
    ASSERT_EQ(qwen3tts_model_load(testing::model_dir("tiny-custom_voice").c_str(), &lo, &m),
              QWEN3TTS_OK)
        << qwen3tts_last_error();
    const ctest::CModel model(m);
    qwen3tts_model_info info{};
    info.struct_size = sizeof info;
    ASSERT_EQ(qwen3tts_model_get_info(model.get(), &info), QWEN3TTS_OK);
    EXPECT_STREQ(info.quant, "talker=q8,predictor=bf16");

    lo.quant = "q3";
    EXPECT_EQ(qwen3tts_model_load(testing::model_dir("tiny-custom_voice").c_str(), &lo, &m),
              QWEN3TTS_ERR_INVALID_ARGUMENT);
    EXPECT_STREQ(qwen3tts_last_error(), "unknown quantization 'q3' in 'q3' (bf16, q8 or q4)");
    EXPECT_EQ(m, nullptr);
}

// codec_conv reaches the decoder: "winograd" is reported back, decodes within the golden bound
// of the official waveform and not bit for bit as the direct sums do; a bad value is refused.
TEST(CApi, CodecConvOptionReachesTheDecoder) {
    qwen3tts_load_options lo;
    qwen3tts_load_options_init(&lo, sizeof lo);
    EXPECT_EQ(lo.codec_conv, nullptr);
    const auto codes64 = testing::golden("tiny-base", "codec_rand_codes").to_i64();
    const std::vector<int32_t> codes(codes64.begin(), codes64.end());
    const auto ref = testing::golden("tiny-base", "codec_decoder_forward_wav").to_f32();
    std::vector<std::vector<float>> wavs;
    for (const char* conv : {"direct", "winograd"}) {
        lo.codec_conv = conv;
        qwen3tts_model* m = nullptr;
        ASSERT_EQ(qwen3tts_model_load(testing::model_dir("tiny-base").c_str(), &lo, &m),
                  QWEN3TTS_OK)
            << qwen3tts_last_error();
        const ctest::CModel model(m);
        qwen3tts_model_info info{};
        info.struct_size = sizeof info;
        ASSERT_EQ(qwen3tts_model_get_info(model.get(), &info), QWEN3TTS_OK);
        EXPECT_STREQ(info.codec_conv, conv);
        float* wav = nullptr;
        size_t n = 0;
        ASSERT_EQ(qwen3tts_model_decode(model.get(), codes.data(), codes.size() / 16, "streaming",
                                        2, &wav, &n),
                  QWEN3TTS_OK)
            << qwen3tts_last_error();
        wavs.emplace_back(wav, wav + n);
        qwen3tts_free(wav);
        ASSERT_EQ(wavs.back().size(), ref.size());
        EXPECT_LE(testing::compare(wavs.back(), ref).max_abs, 1e-4) << conv;
    }
    EXPECT_NE(wavs[0], wavs[1]) << "codec_conv had no effect";

    lo.codec_conv = "fast";
    qwen3tts_model* m = nullptr;
    EXPECT_EQ(qwen3tts_model_load(testing::model_dir("tiny-base").c_str(), &lo, &m),
              QWEN3TTS_ERR_INVALID_ARGUMENT);
    EXPECT_STREQ(qwen3tts_last_error(), "unknown codec_conv 'fast' (direct or winograd)");
    EXPECT_EQ(m, nullptr);
}

TEST(CApi, DecodeEqualsTheCppDecode) {
    const Model cpp = Model::load(testing::model_dir("tiny-base"));
    const auto model = load_model("tiny-base");
    const auto codes64 = testing::golden("tiny-base", "codec_rand_codes").to_i64();
    const std::vector<int32_t> codes(codes64.begin(), codes64.end());
    const size_t n_frames = codes.size() / 16;
    for (const char* mode : {"streaming", "official-chunked"}) {
        float* wav = nullptr;
        size_t n = 0;
        ASSERT_EQ(qwen3tts_model_decode(model.get(), codes.data(), n_frames, mode, 2, &wav, &n),
                  QWEN3TTS_OK)
            << qwen3tts_last_error();
        EXPECT_EQ(take(wav, n), cpp.decode(codes, mode, 2)) << mode;
    }
    float* wav = nullptr;
    size_t n = 0;
    ASSERT_EQ(qwen3tts_model_decode(model.get(), codes.data(), n_frames, nullptr, 1, &wav, &n),
              QWEN3TTS_OK);
    EXPECT_EQ(n, n_frames * 1920);
    qwen3tts_free(wav);

    EXPECT_EQ(qwen3tts_model_decode(model.get(), codes.data(), n_frames, "bogus", 1, &wav, &n),
              QWEN3TTS_ERR_INVALID_ARGUMENT);
    EXPECT_TRUE(contains(qwen3tts_last_error(), "unknown codec decode mode 'bogus'"))
        << qwen3tts_last_error();
    EXPECT_EQ(wav, nullptr);
    EXPECT_EQ(n, 0u);
    std::vector<int32_t> bad = codes;
    bad[17] = 5000;
    EXPECT_EQ(qwen3tts_model_decode(model.get(), bad.data(), n_frames, nullptr, 1, &wav, &n),
              QWEN3TTS_ERR_INVALID_ARGUMENT)
        << qwen3tts_last_error();
    EXPECT_TRUE(contains(qwen3tts_last_error(), "5000")) << qwen3tts_last_error();
    EXPECT_EQ(qwen3tts_model_decode(model.get(), codes.data(), SIZE_MAX / 2, nullptr, 1, &wav, &n),
              QWEN3TTS_ERR_INVALID_ARGUMENT);
    EXPECT_TRUE(contains(qwen3tts_last_error(), "overflows")) << qwen3tts_last_error();
}

TEST(CApi, WriteAudioThenEncodeEqualsTheCppEncoder) {
    const auto ref = testing::golden("tiny-base", "audio_ref_24k").to_f32();
    const std::string wav = tmp("ref.wav");
    ASSERT_EQ(qwen3tts_write_audio(wav.c_str(), ref.data(), ref.size(), 24000, nullptr),
              QWEN3TTS_OK)
        << qwen3tts_last_error();
    const Audio back = read_audio_file(wav);
    EXPECT_EQ(back.sample_rate, 24000);
    ASSERT_EQ(back.samples.size(), ref.size());
    for (size_t i = 0; i < ref.size(); ++i)
        ASSERT_NEAR(back.samples[i], ref[i], 1.0 / 32768) << i;  // 16-bit WAV
    const std::string f32 = tmp("ref.f32.wav");
    ASSERT_EQ(qwen3tts_write_audio(f32.c_str(), ref.data(), ref.size(), 24000, "wav-f32"),
              QWEN3TTS_OK);
    EXPECT_EQ(read_audio_file(f32).samples, ref);

    const Model cpp = Model::load(testing::model_dir("tiny-base"));
    const auto model = load_model("tiny-base");
    int32_t* codes = nullptr;
    size_t frames = 0;
    ASSERT_EQ(qwen3tts_model_encode_audio(model.get(), wav.c_str(), 2, 0, &codes, &frames),
              QWEN3TTS_OK)
        << qwen3tts_last_error();
    const Model::EncodedAudio want = cpp.encode_audio(wav, 2);
    EXPECT_EQ(int64_t(frames), want.frames);
    EXPECT_GT(frames, 0u);
    EXPECT_EQ(take(codes, frames * 16), want.codes);

    EXPECT_EQ(qwen3tts_model_encode_audio(model.get(), wav.c_str(), 1, 0.5, &codes, &frames),
              QWEN3TTS_ERR_INVALID_ARGUMENT);
    EXPECT_TRUE(contains(qwen3tts_last_error(), wav)) << qwen3tts_last_error();
    EXPECT_EQ(codes, nullptr);
    EXPECT_EQ(frames, 0u);
}

TEST(CApi, WriteAudioErrorsNameTheProblem) {
    const float s[4] = {0, 0.5f, -0.5f, 0};
    EXPECT_EQ(qwen3tts_write_audio(tmp("x.wav").c_str(), s, 4, 24000, "bogus"),
              QWEN3TTS_ERR_INVALID_ARGUMENT);
    EXPECT_TRUE(contains(qwen3tts_last_error(), "bogus")) << qwen3tts_last_error();
    EXPECT_EQ(qwen3tts_write_audio(tmp("x.wav").c_str(), nullptr, 4, 24000, nullptr),
              QWEN3TTS_ERR_INVALID_ARGUMENT);
    EXPECT_STREQ(qwen3tts_last_error(), "qwen3tts_write_audio: samples is NULL");
    EXPECT_EQ(qwen3tts_write_audio(tmp("x.wav").c_str(), s, 4, 0, nullptr),
              QWEN3TTS_ERR_INVALID_ARGUMENT);
    EXPECT_TRUE(contains(qwen3tts_last_error(), "invalid sample rate 0")) << qwen3tts_last_error();
    EXPECT_EQ(qwen3tts_write_audio(nullptr, s, 4, 24000, nullptr), QWEN3TTS_ERR_INVALID_ARGUMENT);
    EXPECT_STREQ(qwen3tts_last_error(), "qwen3tts_write_audio: path is NULL");
    EXPECT_EQ(qwen3tts_write_audio("/nonexistent/dir/x.wav", s, 4, 24000, nullptr), QWEN3TTS_ERR_IO)
        << failure(QWEN3TTS_ERR_IO);
}

// Every entry point refuses NULL where it needs a pointer, names it, and clears its outputs.
TEST(CApi, NullArgumentsAreNamedErrors) {
    const auto model = load_model("tiny-custom_voice");
    auto expect_null = [](int rc, const char* message) {
        EXPECT_EQ(rc, QWEN3TTS_ERR_INVALID_ARGUMENT) << message;
        EXPECT_STREQ(qwen3tts_last_error(), message);
    };
    qwen3tts_model* m = reinterpret_cast<qwen3tts_model*>(1);
    expect_null(qwen3tts_model_load(nullptr, nullptr, &m), "qwen3tts_model_load: model is NULL");
    EXPECT_EQ(m, nullptr);
    expect_null(qwen3tts_model_load("x", nullptr, nullptr), "qwen3tts_model_load: out is NULL");
    expect_null(qwen3tts_model_get_info(nullptr, nullptr),
                "qwen3tts_model_get_info: model is NULL");
    expect_null(qwen3tts_model_get_info(model.get(), nullptr),
                "qwen3tts_model_get_info: info is NULL");
    int32_t* ids = reinterpret_cast<int32_t*>(1);
    size_t n = 7;
    expect_null(qwen3tts_model_tokenize(model.get(), nullptr, &ids, &n),
                "qwen3tts_model_tokenize: text is NULL");
    EXPECT_EQ(ids, nullptr);
    EXPECT_EQ(n, 0u);
    expect_null(qwen3tts_model_tokenize(nullptr, "x", &ids, &n),
                "qwen3tts_model_tokenize: model is NULL");
    expect_null(qwen3tts_model_tokenize(model.get(), "x", nullptr, &n),
                "qwen3tts_model_tokenize: ids is NULL");
    float* wav = nullptr;
    expect_null(qwen3tts_model_decode(model.get(), nullptr, 3, nullptr, 1, &wav, &n),
                "qwen3tts_model_decode: codes is NULL");
    expect_null(qwen3tts_model_decode(nullptr, nullptr, 0, nullptr, 1, &wav, &n),
                "qwen3tts_model_decode: model is NULL");
    expect_null(qwen3tts_model_decode(model.get(), nullptr, 0, nullptr, 1, &wav, nullptr),
                "qwen3tts_model_decode: n_samples is NULL");
    int32_t* codes = nullptr;
    expect_null(qwen3tts_model_encode_audio(model.get(), nullptr, 1, 0, &codes, &n),
                "qwen3tts_model_encode_audio: audio_path is NULL");
    expect_null(qwen3tts_model_encode_audio(nullptr, "x.wav", 1, 0, &codes, &n),
                "qwen3tts_model_encode_audio: model is NULL");
    expect_null(qwen3tts_synthesizer_new(nullptr, 1, nullptr),
                "qwen3tts_synthesizer_new: out is NULL");
    qwen3tts_synthesizer* s = nullptr;
    expect_null(qwen3tts_synthesizer_new(nullptr, 1, &s),
                "qwen3tts_synthesizer_new: model is NULL");
    expect_null(qwen3tts_generate_codes(nullptr, "x", nullptr, &codes, &n, nullptr),
                "qwen3tts_generate_codes: synth is NULL");
    expect_null(qwen3tts_generate_codes_stream(nullptr, "x", nullptr, nullptr, nullptr, nullptr),
                "qwen3tts_generate_codes_stream: synth is NULL");
    expect_null(qwen3tts_speak(nullptr, "x", nullptr, &wav, &n, nullptr),
                "qwen3tts_speak: synth is NULL");
    expect_null(qwen3tts_speak_stream(nullptr, "x", nullptr, nullptr, nullptr, nullptr),
                "qwen3tts_speak_stream: synth is NULL");
    qwen3tts_voice* v = nullptr;
    expect_null(qwen3tts_voice_clone(nullptr, "x.wav", nullptr, &v),
                "qwen3tts_voice_clone: model is NULL");
    expect_null(qwen3tts_voice_clone(model.get(), nullptr, nullptr, &v),
                "qwen3tts_voice_clone: ref_audio_path is NULL");
    expect_null(qwen3tts_voice_clone_samples(model.get(), nullptr, 10, 24000, nullptr, &v),
                "qwen3tts_voice_clone_samples: samples is NULL");
    expect_null(qwen3tts_voice_clone_samples(nullptr, nullptr, 10, 24000, nullptr, &v),
                "qwen3tts_voice_clone_samples: model is NULL");
    expect_null(qwen3tts_voice_load(nullptr, &v), "qwen3tts_voice_load: path is NULL");
    expect_null(qwen3tts_voice_load("x.voice", nullptr), "qwen3tts_voice_load: out is NULL");
    expect_null(qwen3tts_voice_save(nullptr, "x.voice"), "qwen3tts_voice_save: voice is NULL");

    // The free functions and voice_in_context accept NULL.
    qwen3tts_model_free(nullptr);
    qwen3tts_synthesizer_free(nullptr);
    qwen3tts_voice_free(nullptr);
    qwen3tts_free(nullptr);
    EXPECT_EQ(qwen3tts_voice_in_context(nullptr), 0);
}

TEST(CApi, ModelLoadErrorsNameThePath) {
    qwen3tts_model* m = nullptr;
    EXPECT_EQ(qwen3tts_model_load("/nonexistent/model", nullptr, &m), QWEN3TTS_ERR_IO);
    EXPECT_EQ(m, nullptr);
    EXPECT_TRUE(contains(qwen3tts_last_error(), "/nonexistent/model")) << qwen3tts_last_error();
}

}  // namespace
}  // namespace qwen3tts
