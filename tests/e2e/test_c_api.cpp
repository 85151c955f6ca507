// The C API as a binding would use it: load, synthesise codes, free; errors come back as
// codes plus a message, never as exceptions or crashes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "qwen3tts/qwen3tts.h"
#include "support/test_support.hpp"

namespace {

TEST(CApi, GreedyCodesMatchTheReference) {
    qwen3tts_model* model = nullptr;
    ASSERT_EQ(
        qwen3tts_model_load(qwen3tts::testing::model_dir("tiny-custom_voice").c_str(), &model),
        QWEN3TTS_OK)
        << qwen3tts_last_error();
    qwen3tts_synthesizer* synth = nullptr;
    ASSERT_EQ(qwen3tts_synthesizer_new(model, 2, &synth), QWEN3TTS_OK) << qwen3tts_last_error();
    qwen3tts_options opts{};
    opts.language = "English";
    opts.speaker = "Ryan";
    opts.greedy = 1;
    opts.max_frames = 10;
    int32_t* codes = nullptr;
    size_t frames = 0;
    ASSERT_EQ(
        qwen3tts_generate_codes(synth, "Hello world, this is a test.", &opts, &codes, &frames),
        QWEN3TTS_OK)
        << qwen3tts_last_error();
    const auto ref = qwen3tts::testing::golden("tiny-custom_voice", "cv_en_ryan__codes").to_i64();
    ASSERT_EQ(frames * 16, ref.size());
    for (size_t i = 0; i < ref.size(); ++i) EXPECT_EQ(codes[i], ref[i]) << i;
    qwen3tts_free(codes);

    float* wav = nullptr;
    size_t n = 0;
    ASSERT_EQ(qwen3tts_speak(synth, "Hello world, this is a test.", &opts, &wav, &n), QWEN3TTS_OK)
        << qwen3tts_last_error();
    const auto ref_wav = qwen3tts::testing::golden("tiny-custom_voice", "cv_en_ryan__wav").to_f32();
    ASSERT_EQ(n, ref_wav.size());
    float max_diff = 0;
    for (size_t i = 0; i < n; ++i) max_diff = std::max(max_diff, std::fabs(wav[i] - ref_wav[i]));
    EXPECT_LE(max_diff, 2e-5f);  // measured 2.3e-6 (f32 rounding order of the fast kernels)
    qwen3tts_free(wav);
    qwen3tts_synthesizer_free(synth);
    qwen3tts_model_free(model);
}

TEST(CApi, ErrorsAreCodesWithMessages) {
    qwen3tts_model* model = nullptr;
    EXPECT_EQ(qwen3tts_model_load("/nonexistent/model", &model), QWEN3TTS_ERR_IO);
    EXPECT_EQ(model, nullptr);
    EXPECT_NE(std::string(qwen3tts_last_error()).find("/nonexistent/model"), std::string::npos);
    EXPECT_EQ(qwen3tts_model_load(nullptr, &model), QWEN3TTS_ERR_INVALID_ARGUMENT);

    ASSERT_EQ(
        qwen3tts_model_load(qwen3tts::testing::model_dir("tiny-custom_voice").c_str(), &model),
        QWEN3TTS_OK);
    qwen3tts_synthesizer* synth = nullptr;
    ASSERT_EQ(qwen3tts_synthesizer_new(model, 1, &synth), QWEN3TTS_OK);
    qwen3tts_options opts{};
    opts.speaker = "nobody";
    int32_t* codes = nullptr;
    size_t frames = 0;
    EXPECT_EQ(qwen3tts_generate_codes(synth, "hi", &opts, &codes, &frames),
              QWEN3TTS_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(qwen3tts_last_error()).find("unknown speaker 'nobody'"),
              std::string::npos);
    EXPECT_EQ(codes, nullptr);
    qwen3tts_synthesizer_free(synth);
    qwen3tts_model_free(model);
}

}  // namespace
