// C API synthesis: every option reaches the C++ synthesizer (same codes for the same seed and
// options), streaming callbacks see what the whole calls return, cancelling stops after the
// callback that asked, and option errors come back as codes with the C++ messages.
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstring>

#include "e2e/test_c_api_support.hpp"

namespace qwen3tts {
namespace {

using ctest::load_model;
using ctest::new_report;
using ctest::new_synth;
using ctest::take;

const char* const kText = "Hello world, this is a test.";

// A CustomVoice request with every option away from its default, in C and in C++.
struct Request {
    qwen3tts_options c;
    SynthesisOptions cpp;
};

Request custom_voice_request(const qwen3tts_model* model, const Model& cpp_model) {
    Request r;
    qwen3tts_options_init(model, &r.c, sizeof r.c);
    r.c.language = "English";
    r.c.speaker = "Ryan";
    r.c.text_layout = "streaming";
    r.c.talker = {1, 0.7f, 20, 0.9f, 1.1f};
    r.c.predictor = {1, 0.8f, 30, 0.95f, 1.0f};
    r.c.max_frames = 12;
    r.c.has_seed = 1;
    r.c.seed = 42;
    r.cpp = cpp_model.default_options();
    r.cpp.language = "English";
    r.cpp.speaker = "Ryan";
    r.cpp.text_layout = "streaming";
    r.cpp.talker = {true, 0.7f, 20, 0.9f, 1.1f};
    r.cpp.predictor = {true, 0.8f, 30, 0.95f, 1.0f};
    r.cpp.max_frames = 12;
    r.cpp.seed = 42;
    return r;
}

std::vector<int32_t> c_codes(qwen3tts_synthesizer* synth, const char* text,
                             const qwen3tts_options* o, qwen3tts_report* report = nullptr) {
    int32_t* codes = nullptr;
    size_t frames = 0;
    const int rc = qwen3tts_generate_codes(synth, text, o, &codes, &frames, report);
    EXPECT_EQ(rc, QWEN3TTS_OK) << qwen3tts_last_error();
    return take(codes, frames * 16);
}

std::vector<float> c_speak(qwen3tts_synthesizer* synth, const char* text, const qwen3tts_options* o,
                           qwen3tts_report* report = nullptr) {
    float* wav = nullptr;
    size_t n = 0;
    const int rc = qwen3tts_speak(synth, text, o, &wav, &n, report);
    EXPECT_EQ(rc, QWEN3TTS_OK) << qwen3tts_last_error();
    return take(wav, n);
}

TEST(CApiSynthesis, CodesEqualTheCppCodesForTheSameSeedAndOptions) {
    const Model cpp_model = Model::load(testing::model_dir("tiny-custom_voice"));
    const auto model = load_model("tiny-custom_voice");
    const auto synth = new_synth(model.get());
    const Request r = custom_voice_request(model.get(), cpp_model);
    qwen3tts_report report = new_report();
    const auto codes = c_codes(synth.get(), kText, &r.c, &report);

    Synthesizer cpp(cpp_model, EngineOptions{2});
    GenerationReport want;
    EXPECT_EQ(codes, cpp.generate_codes(kText, r.cpp, {}, &want));
    EXPECT_EQ(report.frames, want.frames);
    EXPECT_EQ(int64_t(codes.size() / 16), want.frames);
    EXPECT_EQ(report.prompt_positions, want.prompt_positions);
    EXPECT_EQ(report.stopped_at_eos, want.stopped_at_eos ? 1 : 0);
    EXPECT_EQ(report.seed, 42u);
    EXPECT_EQ(report.cancelled, 0);
    EXPECT_EQ(report.samples, 0);
    EXPECT_EQ(report.reused_positions, 0);
    // The same request again starts from the keys and values of the first one's prompt.
    qwen3tts_report again = new_report();
    EXPECT_EQ(c_codes(synth.get(), kText, &r.c, &again), codes);
    EXPECT_EQ(again.reused_positions, report.prompt_positions - 1);

    // Each option matters: a different seed, segments, layout or sampling gives other codes.
    qwen3tts_options o = r.c;
    o.seed = 43;
    EXPECT_NE(c_codes(synth.get(), kText, &o), codes);
    o = r.c;
    o.segment_chars = 16;  // "Hello world," and "this is a test."
    SynthesisOptions segmented = r.cpp;
    segmented.segment_chars = 16;
    const auto in_segments = c_codes(synth.get(), kText, &o);
    EXPECT_NE(in_segments, codes);
    EXPECT_EQ(in_segments, cpp.generate_codes(kText, segmented));
    o = r.c;
    o.talker.do_sample = 0;
    o.predictor.do_sample = 0;
    SynthesisOptions greedy = r.cpp;
    greedy.talker.do_sample = greedy.predictor.do_sample = false;
    EXPECT_EQ(c_codes(synth.get(), kText, &o), cpp.generate_codes(kText, greedy));
}

TEST(CApiSynthesis, GreedyCodesAndAudioMatchTheReference) {
    const auto model = load_model("tiny-custom_voice");
    const auto synth = new_synth(model.get());
    qwen3tts_options o;
    qwen3tts_options_init(model.get(), &o, sizeof o);
    o.language = "English";
    o.speaker = "Ryan";
    o.talker.do_sample = o.predictor.do_sample = 0;
    o.max_frames = 10;
    const auto ref = testing::golden("tiny-custom_voice", "cv_en_ryan__codes").to_i64();
    const auto codes = c_codes(synth.get(), kText, &o);
    EXPECT_EQ(std::vector<int64_t>(codes.begin(), codes.end()), ref);

    qwen3tts_report report = new_report();
    const auto wav = c_speak(synth.get(), kText, &o, &report);
    const auto ref_wav = testing::golden("tiny-custom_voice", "cv_en_ryan__wav").to_f32();
    ASSERT_EQ(wav.size(), ref_wav.size());
    EXPECT_LE(testing::compare(wav, ref_wav).max_abs, 2e-5);  // measured 2.3e-6
    EXPECT_EQ(report.samples, int64_t(wav.size()));
    EXPECT_EQ(report.frames, int64_t(ref.size() / 16));
    EXPECT_GT(report.total_ms, 0.0);
}

TEST(CApiSynthesis, InstructAndLanguageReachTheVoiceDesignModel) {
    const Model cpp_model = Model::load(testing::model_dir("tiny-voice_design"));
    const auto model = load_model("tiny-voice_design");
    const auto synth = new_synth(model.get());
    qwen3tts_options o;
    qwen3tts_options_init(model.get(), &o, sizeof o);
    o.language = "Chinese";
    o.instruct = "A calm, low voice.";
    o.max_frames = 8;
    o.has_seed = 1;
    o.seed = 5;
    SynthesisOptions want = cpp_model.default_options();
    want.language = "Chinese";
    want.instruct = "A calm, low voice.";
    want.max_frames = 8;
    want.seed = 5;
    Synthesizer cpp(cpp_model, EngineOptions{2});
    const auto codes = c_codes(synth.get(), kText, &o);
    EXPECT_EQ(codes, cpp.generate_codes(kText, want));
    o.instruct = "A bright, fast voice.";
    EXPECT_NE(c_codes(synth.get(), kText, &o), codes);
}

TEST(CApiSynthesis, UnsetSeedIsRandomAndReported) {
    const auto model = load_model("tiny-custom_voice");
    const auto synth = new_synth(model.get());
    const Request r =
        custom_voice_request(model.get(), Model::load(testing::model_dir("tiny-custom_voice")));
    qwen3tts_options o = r.c;
    o.has_seed = 0;
    o.seed = 42;  // ignored without has_seed
    qwen3tts_report a = new_report(), b = new_report();
    const auto codes = c_codes(synth.get(), kText, &o, &a);
    c_codes(synth.get(), kText, &o, &b);
    EXPECT_NE(a.seed, b.seed);
    EXPECT_NE(a.seed, 42u);
    o.has_seed = 1;
    o.seed = a.seed;
    EXPECT_EQ(c_codes(synth.get(), kText, &o), codes);
}

// An options struct from an older header ends before has_seed: the fields after it take the
// defaults (a random seed, streaming codec decode), whatever the memory behind it holds.
TEST(CApiSynthesis, ShortOptionsStructTakesDefaultsForLaterFields) {
    const auto model = load_model("tiny-custom_voice");
    const auto synth = new_synth(model.get());
    const Request r =
        custom_voice_request(model.get(), Model::load(testing::model_dir("tiny-custom_voice")));
    qwen3tts_options o = r.c;
    o.codec_decode = "bogus";
    float* samples = nullptr;
    size_t n = 0;
    EXPECT_EQ(qwen3tts_speak(synth.get(), kText, &o, &samples, &n, nullptr),
              QWEN3TTS_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(qwen3tts_last_error()).find("'bogus'"), std::string::npos)
        << qwen3tts_last_error();

    o.struct_size = offsetof(qwen3tts_options, has_seed);
    qwen3tts_report report = new_report();
    const auto wav = c_speak(synth.get(), kText, &o, &report);
    EXPECT_EQ(report.frames, 12);  // max_frames lies within the struct: read
    EXPECT_NE(report.seed, 42u);   // has_seed and seed lie past it: random
    EXPECT_EQ(wav.size(), size_t(report.samples));
}

TEST(CApiSynthesis, ShortReportGetsOnlyTheFieldsWithinIt) {
    const auto model = load_model("tiny-custom_voice");
    const auto synth = new_synth(model.get());
    const Request r =
        custom_voice_request(model.get(), Model::load(testing::model_dir("tiny-custom_voice")));
    qwen3tts_report report;
    std::memset(&report, 0x5a, sizeof report);
    report.struct_size = offsetof(qwen3tts_report, seed);
    c_codes(synth.get(), kText, &r.c, &report);
    EXPECT_EQ(report.frames, 12);
    qwen3tts_report untouched;
    std::memset(&untouched, 0x5a, sizeof untouched);
    EXPECT_EQ(report.seed, untouched.seed);
    EXPECT_EQ(
        std::memcmp(&report.seed, &untouched.seed, sizeof report - offsetof(qwen3tts_report, seed)),
        0);

    report.struct_size = 0;
    int32_t* codes = nullptr;
    size_t frames = 0;
    EXPECT_EQ(qwen3tts_generate_codes(synth.get(), kText, &r.c, &codes, &frames, &report),
              QWEN3TTS_ERR_INVALID_ARGUMENT);
    EXPECT_STREQ(qwen3tts_last_error(),
                 "qwen3tts_report: struct_size not set (set it to sizeof(qwen3tts_report))");
    qwen3tts_options o = r.c;
    o.struct_size = 0;
    EXPECT_EQ(qwen3tts_generate_codes(synth.get(), kText, &o, &codes, &frames, nullptr),
              QWEN3TTS_ERR_INVALID_ARGUMENT);
    EXPECT_STREQ(qwen3tts_last_error(),
                 "qwen3tts_options: struct_size not set (use qwen3tts_options_init)");
}

struct Frames {
    std::vector<int32_t> codes;
    size_t n_codebook = 0;
    int calls = 0;
    int stop_after = -1;  // return non-zero from this call on (1-based)
};

int on_frame(const int32_t* codes, size_t n_codebook, void* user_data) {
    auto* f = static_cast<Frames*>(user_data);
    f->n_codebook = n_codebook;
    f->codes.insert(f->codes.end(), codes, codes + n_codebook);
    ++f->calls;
    return f->calls == f->stop_after ? 1 : 0;
}

TEST(CApiSynthesis, FrameCallbackGetsTheFramesOfGenerateCodes) {
    const auto model = load_model("tiny-custom_voice");
    const auto synth = new_synth(model.get());
    const Request r =
        custom_voice_request(model.get(), Model::load(testing::model_dir("tiny-custom_voice")));
    const auto codes = c_codes(synth.get(), kText, &r.c);
    Frames f;
    qwen3tts_report report = new_report();
    ASSERT_EQ(qwen3tts_generate_codes_stream(synth.get(), kText, &r.c, on_frame, &f, &report),
              QWEN3TTS_OK)
        << qwen3tts_last_error();
    EXPECT_EQ(f.n_codebook, 16u);
    EXPECT_EQ(f.codes, codes);
    EXPECT_EQ(report.frames, f.calls);
    EXPECT_EQ(report.cancelled, 0);
}

TEST(CApiSynthesis, FrameCallbackStopsTheGeneration) {
    const auto model = load_model("tiny-custom_voice");
    const auto synth = new_synth(model.get());
    const Request r =
        custom_voice_request(model.get(), Model::load(testing::model_dir("tiny-custom_voice")));
    const auto codes = c_codes(synth.get(), kText, &r.c);
    ASSERT_GT(codes.size(), 3u * 16);
    Frames f;
    f.stop_after = 3;
    qwen3tts_report report = new_report();
    ASSERT_EQ(qwen3tts_generate_codes_stream(synth.get(), kText, &r.c, on_frame, &f, &report),
              QWEN3TTS_OK)
        << qwen3tts_last_error();
    EXPECT_EQ(f.calls, 3);
    EXPECT_EQ(f.codes, std::vector<int32_t>(codes.begin(), codes.begin() + 3 * 16));
    EXPECT_EQ(report.cancelled, 1);
    EXPECT_EQ(report.frames, 3);
    EXPECT_EQ(report.stopped_at_eos, 0);
}

struct Chunks {
    std::vector<float> samples;
    int calls = 0;
    int stop_after = -1;
};

int on_audio(const float* samples, size_t n, void* user_data) {
    auto* c = static_cast<Chunks*>(user_data);
    c->samples.insert(c->samples.end(), samples, samples + n);
    ++c->calls;
    return c->calls == c->stop_after ? 1 : 0;
}

TEST(CApiSynthesis, SpeakStreamChunksConcatenateToSpeak) {
    const auto model = load_model("tiny-custom_voice");
    const auto synth = new_synth(model.get());
    const Request r =
        custom_voice_request(model.get(), Model::load(testing::model_dir("tiny-custom_voice")));
    const auto wav = c_speak(synth.get(), kText, &r.c);
    Chunks c;
    qwen3tts_report report = new_report();
    ASSERT_EQ(qwen3tts_speak_stream(synth.get(), kText, &r.c, on_audio, &c, &report), QWEN3TTS_OK)
        << qwen3tts_last_error();
    EXPECT_GT(c.calls, 1);
    EXPECT_EQ(c.samples, wav);
    EXPECT_EQ(report.samples, int64_t(wav.size()));
    EXPECT_EQ(report.cancelled, 0);
    EXPECT_GT(report.first_audio_ms, 0.0);
}

TEST(CApiSynthesis, SpeakStreamCancelAfterTwoChunks) {
    const auto model = load_model("tiny-custom_voice");
    const auto synth = new_synth(model.get());
    const Request r =
        custom_voice_request(model.get(), Model::load(testing::model_dir("tiny-custom_voice")));
    const auto wav = c_speak(synth.get(), kText, &r.c);
    Chunks c;
    c.stop_after = 2;
    qwen3tts_report report = new_report();
    ASSERT_EQ(qwen3tts_speak_stream(synth.get(), kText, &r.c, on_audio, &c, &report), QWEN3TTS_OK)
        << qwen3tts_last_error();
    EXPECT_EQ(c.calls, 2);
    EXPECT_EQ(report.cancelled, 1);
    ASSERT_LT(c.samples.size(), wav.size());
    EXPECT_EQ(c.samples, std::vector<float>(wav.begin(), wav.begin() + c.samples.size()));
}

// The codes of generate_codes decoded by qwen3tts_model_decode are the audio of speak (with the
// same seed), in both codec decode modes (streaming also with its packets decoded beside the
// generation).
TEST(CApiSynthesis, DecodeOfGeneratedCodesEqualsSpeak) {
    const auto model = load_model("tiny-custom_voice");
    const auto synth = new_synth(model.get());
    const Request r =
        custom_voice_request(model.get(), Model::load(testing::model_dir("tiny-custom_voice")));
    const auto codes = c_codes(synth.get(), kText, &r.c);
    for (const char* mode : {"streaming", "official-chunked"}) {
        SCOPED_TRACE(mode);
        qwen3tts_options o = r.c;
        o.codec_decode = mode;
        const auto wav = c_speak(synth.get(), kText, &o);
        if (mode == std::string("streaming")) {  // the same audio decoded beside the generation
            o.codec_overlap = "on";
            EXPECT_EQ(c_speak(synth.get(), kText, &o), wav);
        }
        float* decoded = nullptr;
        size_t n = 0;
        ASSERT_EQ(qwen3tts_model_decode(model.get(), codes.data(), codes.size() / 16, mode, 2,
                                        &decoded, &n),
                  QWEN3TTS_OK)
            << qwen3tts_last_error();
        const auto d = take(decoded, n);
        ASSERT_EQ(d.size(), wav.size());
        EXPECT_LE(testing::compare(d, wav).max_abs, 1e-6);
    }
}

TEST(CApiSynthesis, OptionErrorsAreCodesWithTheCppMessages) {
    const auto model = load_model("tiny-custom_voice");
    const auto synth = new_synth(model.get());
    const Request r =
        custom_voice_request(model.get(), Model::load(testing::model_dir("tiny-custom_voice")));
    auto error_of = [&](const qwen3tts_options& o) {
        int32_t* codes = reinterpret_cast<int32_t*>(1);
        size_t frames = 7;
        const int rc = qwen3tts_generate_codes(synth.get(), kText, &o, &codes, &frames, nullptr);
        EXPECT_EQ(rc, QWEN3TTS_ERR_INVALID_ARGUMENT);
        EXPECT_EQ(codes, nullptr);
        EXPECT_EQ(frames, 0u);
        return std::string(qwen3tts_last_error());
    };
    auto has = [](const std::string& message, const std::string& part) {
        EXPECT_NE(message.find(part), std::string::npos) << message;
    };
    qwen3tts_options o = r.c;
    o.speaker = "nobody";
    has(error_of(o), "unknown speaker 'nobody'");
    o = r.c;
    o.language = "Klingon";
    has(error_of(o), "Klingon");
    o = r.c;
    o.text_layout = "sideways";
    has(error_of(o), "unknown text layout 'sideways' (auto, streaming or non-streaming)");
    o = r.c;
    o.codec_decode = "bogus";
    has(error_of(o), "unknown codec decode mode 'bogus' (streaming or official-chunked)");
    o = r.c;
    o.codec_overlap = "sometimes";
    has(error_of(o), "unknown codec overlap 'sometimes' (auto, on or off)");
    o = r.c;
    o.talker.temperature = 0;
    has(error_of(o), "temperature must be > 0");
    o = r.c;
    o.max_frames = -1;
    has(error_of(o), "max frames must be positive, got -1");

    EXPECT_EQ(qwen3tts_generate_codes_stream(synth.get(), kText, &r.c, nullptr, nullptr, nullptr),
              QWEN3TTS_ERR_INVALID_ARGUMENT);
    EXPECT_STREQ(qwen3tts_last_error(), "qwen3tts_generate_codes_stream: on_frame is NULL");
    EXPECT_EQ(qwen3tts_speak_stream(synth.get(), kText, &r.c, nullptr, nullptr, nullptr),
              QWEN3TTS_ERR_INVALID_ARGUMENT);
    EXPECT_STREQ(qwen3tts_last_error(), "qwen3tts_speak_stream: on_audio is NULL");
    float* wav = nullptr;
    size_t n = 0;
    EXPECT_EQ(qwen3tts_speak(synth.get(), nullptr, &r.c, &wav, &n, nullptr),
              QWEN3TTS_ERR_INVALID_ARGUMENT);
    EXPECT_STREQ(qwen3tts_last_error(), "qwen3tts_speak: text is NULL");
}

TEST(CApiSynthesis, OptionsNullAreTheModelDefaults) {
    // A Base model without a voice to clone: the request itself is refused, with its message.
    const auto model = load_model("tiny-base");
    const auto synth = new_synth(model.get(), 1);
    float* wav = nullptr;
    size_t n = 0;
    EXPECT_EQ(qwen3tts_speak(synth.get(), kText, nullptr, &wav, &n, nullptr),
              QWEN3TTS_ERR_INVALID_ARGUMENT);
    EXPECT_STREQ(qwen3tts_last_error(),
                 "Base models clone a voice: give a reference (--ref-audio or --voice)");
    EXPECT_EQ(qwen3tts_speak(synth.get(), " ", nullptr, &wav, &n, nullptr),
              QWEN3TTS_ERR_INVALID_ARGUMENT);
    EXPECT_STREQ(qwen3tts_last_error(), "the text to speak is empty");
}

TEST(CApiSynthesis, SynthesizerOutlivesItsModelHandle) {
    qwen3tts_model* m = nullptr;
    ASSERT_EQ(qwen3tts_model_load(testing::model_dir("tiny-custom_voice").c_str(), nullptr, &m),
              QWEN3TTS_OK);
    const Request r = custom_voice_request(m, Model::load(testing::model_dir("tiny-custom_voice")));
    const auto synth = new_synth(m);
    const auto before = c_codes(synth.get(), kText, &r.c);
    qwen3tts_model_free(m);
    EXPECT_EQ(c_codes(synth.get(), kText, &r.c), before);
}

}  // namespace
}  // namespace qwen3tts
