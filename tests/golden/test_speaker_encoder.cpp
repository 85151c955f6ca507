// Speaker encoder against the official implementation's outputs on tiny-base
// (tests/data/golden/tiny-base): the log-mel of the reference clip (`spk_mel`), the x-vector of
// extract_speaker_embedding (`spk_xvector`) and the x-vectors the voice-clone cases used
// (`vc_*__ref_spk_embedding`), plus the encoder's input checks.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/thread_pool.hpp"
#include "model/config.hpp"
#include "model/speaker_encoder.hpp"
#include "support/test_support.hpp"
#include "weights/safetensors.hpp"

namespace qwen3tts {
namespace {

constexpr double kRelTol = 1e-4;  // max |diff| ≤ 1e-4 · max |ref|

class SpeakerEncoderGolden : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        const std::string dir = testing::model_dir("tiny-base");
        weights_ = std::make_unique<WeightMap>(WeightMap::open(dir, "model"));
        config_ = load_model_config(dir);
        encoder_ = std::make_unique<SpeakerEncoder>(*weights_, config_.speaker_encoder);
        audio_ = testing::golden("tiny-base", "audio_ref_24k").to_f32();
    }
    static void TearDownTestSuite() {
        encoder_.reset();
        weights_.reset();
    }

    static void expect_close(const std::vector<float>& actual, const std::string& stem) {
        const auto ref = testing::golden("tiny-base", stem).to_f32();
        ASSERT_EQ(actual.size(), ref.size()) << stem;
        const auto d = testing::compare(actual, ref);
        EXPECT_LE(d.max_abs, kRelTol * d.max_ref) << stem << ": max|diff| " << d.max_abs << " at "
                                                  << d.argmax << " (max|ref| " << d.max_ref << ")";
    }

    static std::unique_ptr<WeightMap> weights_;
    static ModelConfig config_;
    static std::unique_ptr<SpeakerEncoder> encoder_;
    static std::vector<float> audio_;
};

std::unique_ptr<WeightMap> SpeakerEncoderGolden::weights_;
ModelConfig SpeakerEncoderGolden::config_;
std::unique_ptr<SpeakerEncoder> SpeakerEncoderGolden::encoder_;
std::vector<float> SpeakerEncoderGolden::audio_;

TEST_F(SpeakerEncoderGolden, UsesEverySpeakerEncoderTensor) {
    for (const std::string& name : weights_->unused())
        EXPECT_NE(name.rfind("speaker_encoder.", 0), 0u) << "not loaded: " << name;
}

TEST_F(SpeakerEncoderGolden, LogMelMatchesReference) {
    const auto ref = testing::golden("tiny-base", "spk_mel");
    ASSERT_EQ(ref.shape, (std::vector<int64_t>{1, int64_t(audio_.size() / 256), 128}));
    const auto mel = encoder_->log_mel(audio_);
    expect_close(mel, "spk_mel");
}

TEST_F(SpeakerEncoderGolden, NetworkOnReferenceMelMatches) {
    // The network alone, fed the official mel: isolates it from the front end.
    const auto mel = testing::golden("tiny-base", "spk_mel");
    const auto xvec = encoder_->embed_mel(mel.to_f32().data(), mel.shape[1]);
    expect_close(xvec, "spk_xvector");
}

TEST_F(SpeakerEncoderGolden, XVectorMatchesReference) {
    const auto xvec = encoder_->embed(audio_);
    ASSERT_EQ(int(xvec.size()), config_.speaker_encoder.enc_dim);
    expect_close(xvec, "spk_xvector");
}

TEST_F(SpeakerEncoderGolden, XVectorMatchesVoiceClonePrompts) {
    const auto xvec = encoder_->embed(audio_);
    for (const char* stem : {"vc_icl_en__ref_spk_embedding", "vc_xvec_en__ref_spk_embedding",
                             "vc_xvec_auto_zh__ref_spk_embedding"})
        expect_close(xvec, stem);
}

TEST_F(SpeakerEncoderGolden, AudioOverloadAndThreadsAgree) {
    Audio a;
    a.samples = audio_;
    a.sample_rate = 24000;
    ThreadPool pool(2);
    const auto threaded = encoder_->embed(a, {backend::KernelSet::fast, &pool});
    const auto single = encoder_->embed(audio_);
    const auto d = testing::compare(threaded, single);
    EXPECT_LE(d.max_abs, 1e-6 * d.max_ref) << "threads change the result";
}

TEST_F(SpeakerEncoderGolden, MinimumLength) {
    // Released structure: widest conv pad is 4 (k3, dilation 4) → 5 frames → 1280 samples.
    EXPECT_EQ(encoder_->min_frames(), 5);
    EXPECT_EQ(encoder_->min_samples(), 1280u);
    const std::vector<float> ok(audio_.begin(), audio_.begin() + 1280);
    const auto xvec = encoder_->embed(ok);
    for (float v : xvec) EXPECT_TRUE(std::isfinite(v));
    const std::vector<float> short_clip(audio_.begin(), audio_.begin() + 1279);
    try {
        encoder_->embed(short_clip);
        FAIL() << "1279 samples accepted";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
        EXPECT_NE(std::string(e.what()).find("1279 samples"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("1280"), std::string::npos) << e.what();
    }
}

TEST_F(SpeakerEncoderGolden, RejectsWrongRateAndNonFinite) {
    Audio a;
    a.samples = audio_;
    a.sample_rate = 16000;
    try {
        encoder_->embed(a);
        FAIL() << "16 kHz accepted";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
        EXPECT_NE(std::string(e.what()).find("16000 Hz"), std::string::npos) << e.what();
    }
    auto bad = audio_;
    bad[5000] = std::numeric_limits<float>::quiet_NaN();
    try {
        encoder_->embed(bad);
        FAIL() << "NaN accepted";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
        EXPECT_NE(std::string(e.what()).find("5000"), std::string::npos) << e.what();
    }
}

TEST(SpeakerEncoderLoad, CheckpointWithoutEncoderIsAnError) {
    // The tiny CustomVoice config keeps a speaker_encoder_config (the official code builds the
    // encoder only for Base), but its checkpoint has no speaker_encoder.* tensors.
    const std::string dir = testing::model_dir("tiny-custom_voice");
    const auto weights = WeightMap::open(dir, "model");
    const auto config = load_model_config(dir);
    try {
        SpeakerEncoder enc(weights, config.speaker_encoder);
        FAIL() << "checkpoint without speaker_encoder.* accepted";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::model);
        EXPECT_NE(std::string(e.what()).find("speaker_encoder.blocks.0.conv.weight"),
                  std::string::npos)
            << e.what();
    }
    SpeakerEncoderConfig absent;
    EXPECT_THROW({ SpeakerEncoder enc(weights, absent); }, Error);
}

TEST(SpeakerEncoderLoad, MisShapedConfigNamesTheTensor) {
    const std::string dir = testing::model_dir("tiny-base");
    const auto weights = WeightMap::open(dir, "model");
    auto config = load_model_config(dir).speaker_encoder;
    config.enc_dim = 64;  // the checkpoint's fc has 32 outputs
    try {
        SpeakerEncoder enc(weights, config);
        FAIL() << "mis-shaped fc accepted";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::model);
        EXPECT_NE(std::string(e.what()).find("speaker_encoder.fc.weight"), std::string::npos)
            << e.what();
    }
}

}  // namespace
}  // namespace qwen3tts
