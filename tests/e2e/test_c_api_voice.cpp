// C API voices: cloning from a file and from samples of the same audio gives the same voice
// (and the official codes), saved voices synthesise exactly as before, and each bad reference
// is an error code with a message naming the problem.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "audio/audio.hpp"
#include "e2e/test_c_api_support.hpp"
#include "model/voice_file.hpp"

namespace qwen3tts {
namespace {

using ctest::CVoice;
using ctest::load_model;
using ctest::new_synth;
using ctest::take;

const char* const kFox = "The quick brown fox jumps over the lazy dog.";
const char* const kHello = "Hello world, this is a test.";

std::string tmp(const std::string& name) {
    return testing::tmp_dir() + "/c_api_voice_" + name;
}

std::vector<float> reference() {
    return testing::golden("tiny-base", "audio_ref_24k").to_f32();
}

// The reference written through the C API (format "wav" = 16-bit, "wav-f32" = exact floats).
std::string write_reference(const std::string& name, const std::vector<float>& samples, int rate,
                            const char* format) {
    const std::string path = tmp(name);
    EXPECT_EQ(qwen3tts_write_audio(path.c_str(), samples.data(), samples.size(), rate, format),
              QWEN3TTS_OK)
        << qwen3tts_last_error();
    return path;
}

qwen3tts_clone_options clone_options(bool in_context) {
    qwen3tts_clone_options o;
    qwen3tts_clone_options_init(&o, sizeof o);
    if (in_context)
        o.ref_text = kFox;
    else
        o.x_vector_only = 1;
    return o;
}

CVoice clone_file(const qwen3tts_model* model, const std::string& path,
                  const qwen3tts_clone_options& o) {
    qwen3tts_voice* v = nullptr;
    EXPECT_EQ(qwen3tts_voice_clone(model, path.c_str(), &o, &v), QWEN3TTS_OK)
        << qwen3tts_last_error();
    return CVoice(v);
}

CVoice clone_samples(const qwen3tts_model* model, const std::vector<float>& samples, int rate,
                     const qwen3tts_clone_options& o) {
    qwen3tts_voice* v = nullptr;
    EXPECT_EQ(qwen3tts_voice_clone_samples(model, samples.data(), samples.size(), rate, &o, &v),
              QWEN3TTS_OK)
        << qwen3tts_last_error();
    return CVoice(v);
}

// Greedy English codes of kHello in the cloned voice, 10 frames (the golden cases' request).
std::vector<int32_t> codes_with(qwen3tts_synthesizer* synth, const qwen3tts_voice* voice) {
    qwen3tts_options o;
    qwen3tts_options_init(nullptr, &o, sizeof o);
    o.language = "English";
    o.voice = voice;
    o.talker.do_sample = o.predictor.do_sample = 0;
    o.max_frames = 10;
    int32_t* codes = nullptr;
    size_t frames = 0;
    EXPECT_EQ(qwen3tts_generate_codes(synth, kHello, &o, &codes, &frames, nullptr), QWEN3TTS_OK)
        << qwen3tts_last_error();
    return take(codes, frames * 16);
}

std::vector<int32_t> as_i32(const std::vector<int64_t>& v) {
    return std::vector<int32_t>(v.begin(), v.end());
}

TEST(CApiVoice, CloneFromAFileMatchesTheOfficialCodes) {
    const auto model = load_model("tiny-base");
    const auto synth = new_synth(model.get());
    // The official run read the same 16-bit file, so the round trip is exact.
    const std::string wav = write_reference("ref16.wav", reference(), 24000, "wav");
    const CVoice icl = clone_file(model.get(), wav, clone_options(true));
    EXPECT_EQ(qwen3tts_voice_in_context(icl.get()), 1);
    EXPECT_EQ(codes_with(synth.get(), icl.get()),
              as_i32(testing::golden("tiny-base", "vc_icl_en__codes").to_i64()));
    const CVoice xvec = clone_file(model.get(), wav, clone_options(false));
    EXPECT_EQ(qwen3tts_voice_in_context(xvec.get()), 0);
    EXPECT_STREQ(qwen3tts_voice_ref_text(xvec.get()), "");
    EXPECT_STREQ(qwen3tts_voice_ref_text(nullptr), "");
    EXPECT_EQ(codes_with(synth.get(), xvec.get()),
              as_i32(testing::golden("tiny-base", "vc_xvec_en__codes").to_i64()));
}

TEST(CApiVoice, CloneFromSamplesEqualsCloneFromTheirFile) {
    const auto model = load_model("tiny-base");
    const auto synth = new_synth(model.get());
    const auto ref = reference();
    // 24 kHz (no resampling) and 16 kHz (resampled to 24 kHz on both paths).
    const std::vector<float> ref16k = resample(ref, 24000, 16000);
    for (const bool icl : {true, false}) {
        SCOPED_TRACE(icl ? "in-context" : "x-vector only");
        const auto o = clone_options(icl);
        const CVoice from_file =
            clone_file(model.get(), write_reference("ref.f32.wav", ref, 24000, "wav-f32"), o);
        const CVoice from_samples = clone_samples(model.get(), ref, 24000, o);
        const auto codes = codes_with(synth.get(), from_file.get());
        EXPECT_EQ(codes_with(synth.get(), from_samples.get()), codes);
        EXPECT_EQ(codes.size(), 10u * 16);

        const CVoice file16k =
            clone_file(model.get(), write_reference("ref16k.f32.wav", ref16k, 16000, "wav-f32"), o);
        const CVoice samples16k = clone_samples(model.get(), ref16k, 16000, o);
        EXPECT_EQ(codes_with(synth.get(), samples16k.get()),
                  codes_with(synth.get(), file16k.get()));
    }
    // The C++ overload is what the C function wraps: the same voice.
    const Model cpp = Model::load(testing::model_dir("tiny-base"));
    VoiceCloneOptions co;
    co.ref_text = kFox;
    const Voice v = cpp.clone_voice(ref.data(), ref.size(), 24000, co);
    const std::string path = tmp("cpp.voice");
    v.save(path);
    qwen3tts_voice* loaded = nullptr;
    ASSERT_EQ(qwen3tts_voice_load(path.c_str(), &loaded), QWEN3TTS_OK) << qwen3tts_last_error();
    const CVoice cpp_voice(loaded);
    const CVoice c_voice = clone_samples(model.get(), ref, 24000, clone_options(true));
    EXPECT_EQ(codes_with(synth.get(), cpp_voice.get()), codes_with(synth.get(), c_voice.get()));
}

TEST(CApiVoice, SavedVoiceSynthesisesAsTheOriginal) {
    const auto model = load_model("tiny-base");
    const auto synth = new_synth(model.get());
    const auto ref = reference();
    for (const bool icl : {true, false}) {
        SCOPED_TRACE(icl ? "in-context" : "x-vector only");
        const CVoice voice = clone_samples(model.get(), ref, 24000, clone_options(icl));
        const std::string path = tmp(icl ? "icl.voice" : "xvec.voice");
        ASSERT_EQ(qwen3tts_voice_save(voice.get(), path.c_str()), QWEN3TTS_OK)
            << qwen3tts_last_error();
        qwen3tts_voice* v = nullptr;
        ASSERT_EQ(qwen3tts_voice_load(path.c_str(), &v), QWEN3TTS_OK) << qwen3tts_last_error();
        const CVoice loaded(v);
        EXPECT_EQ(qwen3tts_voice_in_context(loaded.get()), icl ? 1 : 0);
        EXPECT_STREQ(qwen3tts_voice_ref_text(loaded.get()), icl ? kFox : "");
        EXPECT_EQ(codes_with(synth.get(), loaded.get()), codes_with(synth.get(), voice.get()));
        // A voice made from samples says so in its file.
        EXPECT_EQ(load_voice_file(path).source, "samples");
    }
    const std::string wav = write_reference("named.wav", ref, 24000, "wav");
    const CVoice named = clone_file(model.get(), wav, clone_options(false));
    ASSERT_EQ(qwen3tts_voice_save(named.get(), tmp("named.voice").c_str()), QWEN3TTS_OK);
    EXPECT_EQ(load_voice_file(tmp("named.voice")).source, "c_api_voice_named.wav");
}

TEST(CApiVoice, BadReferencesAreErrorsNamingTheProblem) {
    const auto model = load_model("tiny-base");
    const auto ref = reference();
    auto error_of = [&](const std::vector<float>& samples, int rate,
                        const qwen3tts_clone_options* o) {
        qwen3tts_voice* v = reinterpret_cast<qwen3tts_voice*>(1);
        const int rc =
            qwen3tts_voice_clone_samples(model.get(), samples.data(), samples.size(), rate, o, &v);
        EXPECT_EQ(rc, QWEN3TTS_ERR_INVALID_ARGUMENT);
        EXPECT_EQ(v, nullptr);
        return std::string(qwen3tts_last_error());
    };
    const auto xvec = clone_options(false);
    EXPECT_EQ(error_of(ref, 0, &xvec),
              "reference samples: sample rate 0 Hz is outside 1000..768000 Hz");
    EXPECT_EQ(error_of(ref, 1000000, &xvec),
              "reference samples: sample rate 1000000 Hz is outside 1000..768000 Hz");
    std::vector<float> nan = ref;
    nan[5] = std::numeric_limits<float>::quiet_NaN();
    EXPECT_EQ(error_of(nan, 24000, &xvec), "reference samples has a non-finite sample at index 5");
    EXPECT_EQ(error_of(std::vector<float>(12000, 0.1f), 24000, &xvec),
              "reference samples is 0.50 s long; voice cloning needs at least 1.00 s");
    qwen3tts_clone_options short_limit = xvec;
    short_limit.max_seconds = 1.0;
    EXPECT_EQ(error_of(std::vector<float>(48000, 0.1f), 24000, &short_limit),
              "reference samples is 2.00 s long; the limit is 1.00 s");
    // NULL options: in-context, which needs the transcript.
    EXPECT_EQ(error_of(ref, 24000, nullptr),
              "in-context voice cloning needs the transcript of the reference audio "
              "(--ref-text), or use --x-vector-only");
    qwen3tts_clone_options unset{};
    EXPECT_EQ(error_of(ref, 24000, &unset),
              "qwen3tts_clone_options: struct_size not set (use qwen3tts_clone_options_init)");

    // Not a Base model.
    const auto cv = load_model("tiny-custom_voice");
    qwen3tts_voice* v = nullptr;
    EXPECT_EQ(qwen3tts_voice_clone_samples(cv.get(), ref.data(), ref.size(), 24000, &xvec, &v),
              QWEN3TTS_ERR_INVALID_ARGUMENT);
    EXPECT_STREQ(qwen3tts_last_error(),
                 "voice cloning needs a Base model; this is a custom_voice model");
    // Files.
    EXPECT_EQ(qwen3tts_voice_clone(model.get(), "/nonexistent/ref.wav", &xvec, &v),
              QWEN3TTS_ERR_IO);
    EXPECT_NE(std::string(qwen3tts_last_error()).find("/nonexistent/ref.wav"), std::string::npos);
    EXPECT_EQ(qwen3tts_voice_load("/nonexistent/x.voice", &v), QWEN3TTS_ERR_IO);
    EXPECT_NE(std::string(qwen3tts_last_error()).find("/nonexistent/x.voice"), std::string::npos);
    const std::string not_voice = testing::model_dir("tiny-base") + "/model.safetensors";
    EXPECT_NE(qwen3tts_voice_load(not_voice.c_str(), &v), QWEN3TTS_OK);
    EXPECT_NE(std::string(qwen3tts_last_error()).find("not a qwen3tts voice file"),
              std::string::npos)
        << qwen3tts_last_error();
    EXPECT_EQ(v, nullptr);
    const CVoice voice = clone_samples(model.get(), ref, 24000, xvec);
    EXPECT_EQ(qwen3tts_voice_save(voice.get(), "/nonexistent/dir/x.voice"), QWEN3TTS_ERR_IO);
    EXPECT_EQ(qwen3tts_voice_save(voice.get(), nullptr), QWEN3TTS_ERR_INVALID_ARGUMENT);
    EXPECT_STREQ(qwen3tts_last_error(), "qwen3tts_voice_save: path is NULL");
}

// A voice is independent of the model it was made with and of the synthesizer using it.
TEST(CApiVoice, VoiceOutlivesItsModelAndIsCheckedWhenUsed) {
    qwen3tts_model* m = nullptr;
    ASSERT_EQ(qwen3tts_model_load(testing::model_dir("tiny-base").c_str(), nullptr, &m),
              QWEN3TTS_OK);
    const CVoice voice = clone_samples(m, reference(), 24000, clone_options(true));
    qwen3tts_model_free(m);
    const auto model = load_model("tiny-base");
    const auto synth = new_synth(model.get());
    EXPECT_EQ(codes_with(synth.get(), voice.get()).size(), 10u * 16);

    // Used with a CustomVoice model: refused.
    const auto cv = load_model("tiny-custom_voice");
    const auto cv_synth = new_synth(cv.get());
    qwen3tts_options o;
    qwen3tts_options_init(cv.get(), &o, sizeof o);
    o.voice = voice.get();
    o.max_frames = 2;
    int32_t* codes = nullptr;
    size_t frames = 0;
    EXPECT_EQ(qwen3tts_generate_codes(cv_synth.get(), kHello, &o, &codes, &frames, nullptr),
              QWEN3TTS_ERR_INVALID_ARGUMENT);
    EXPECT_STREQ(qwen3tts_last_error(),
                 "voice: voices clone with Base models; this is a custom_voice model");
}

}  // namespace
}  // namespace qwen3tts
