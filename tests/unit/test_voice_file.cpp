// Saved voices: shapes and sizes come from the file and are checked against the model's
// config (speaker embedding size, codes per frame, codebook size), never assumed.
#include <gtest/gtest.h>

#include <fstream>
#include <functional>

#include "core/error.hpp"
#include "model/config.hpp"
#include "model/voice_file.hpp"
#include "support/test_support.hpp"

namespace qwen3tts {
namespace {

using testing::error_of;

std::string tmp(const std::string& name) {
    return testing::tmp_dir() + "/voice_" + name;
}

const ModelConfig& base_config() {
    static const ModelConfig c = load_model_config(testing::model_dir("tiny-base"));
    return c;
}

// A voice that fits the tiny Base model: 32-value x-vector, two frames of 16 codes.
VoiceFile fitting_voice() {
    VoiceFile v;
    v.voice.x_vector.assign(32, 0.5f);
    v.voice.ref_codes.assign(32, 7);
    v.voice.ref_text = "hello";
    v.n_codebook = 16;
    v.model_size = base_config().size;
    v.hidden_size = base_config().talker.hidden_size;
    return v;
}

TEST(VoiceFile, RoundTripKeepsTheFrameWidth) {
    VoiceFile v = fitting_voice();
    v.voice.ref_codes.assign(24, 3);
    v.n_codebook = 8;
    save_voice_file(tmp("rt.voice"), v);
    const VoiceFile back = load_voice_file(tmp("rt.voice"));
    EXPECT_EQ(back.n_codebook, 8);
    EXPECT_EQ(back.voice.ref_codes, v.voice.ref_codes);
    EXPECT_EQ(back.voice.x_vector, v.voice.x_vector);
    EXPECT_EQ(back.voice.ref_text, "hello");
}

TEST(VoiceFile, HugeRefCodesShapeIsRefused) {
    // ref_codes [2^60 + 1, 16] I64: the byte count wraps to 128 in 64 bits.
    const std::string header =
        R"({"__metadata__":{"format":"qwen3tts-voice","version":"1","mode":"in_context",)"
        R"("ref_text":"x","hidden_size":"32"},)"
        R"("ref_codes":{"dtype":"I64","shape":[1152921504606846977,16],"data_offsets":[0,128]},)"
        R"("x_vector":{"dtype":"F32","shape":[32],"data_offsets":[128,256]}})";
    const std::string path = tmp("huge.voice");
    std::ofstream out(path, std::ios::binary);
    const uint64_t n = header.size();
    out.write(reinterpret_cast<const char*>(&n), 8);
    out << header << std::string(256, '\0');
    out.close();
    EXPECT_NE(error_of([&] { load_voice_file(path); })
                  .find(path + ": tensor ref_codes: shape [1152921504606846977, 16] has more "
                               "elements than fit in 64 bits"),
              std::string::npos)
        << error_of([&] { load_voice_file(path); });
}

TEST(VoiceFile, XVectorMustMatchTheSpeakerEmbedding) {
    VoiceFile v = fitting_voice();
    v.voice.x_vector.assign(31, 0.5f);
    EXPECT_EQ(error_of([&] { check_voice_fits(v, base_config(), 2048, "v.voice"); }),
              "v.voice: x_vector has 31 values, but this model's speaker embedding has 32");
    EXPECT_EQ(error_of([&] { check_voice_fits(fitting_voice(), base_config(), 2048, "v"); }),
              "(no error)");
}

TEST(VoiceFile, FrameWidthAndCodesComeFromTheModel) {
    VoiceFile v = fitting_voice();
    v.voice.ref_codes.assign(24, 3);
    v.n_codebook = 8;
    EXPECT_EQ(error_of([&] { check_voice_fits(v, base_config(), 2048, "v.voice"); }),
              "v.voice: ref_codes frames have 8 codes, but this model's frames have 16");
    v = fitting_voice();
    v.voice.ref_codes[16 + 3] = 2048;
    EXPECT_EQ(error_of([&] { check_voice_fits(v, base_config(), 2048, "v.voice"); }),
              "v.voice: ref_codes value 2048 at frame 1, codebook 3 is outside [0, 2048)");
    v.voice.ref_codes[16 + 3] = 1500;
    EXPECT_EQ(error_of([&] { check_voice_fits(v, base_config(), 2048, "v.voice"); }), "(no error)");
    EXPECT_EQ(error_of([&] { check_voice_fits(v, base_config(), 1024, "v.voice"); }),
              "v.voice: ref_codes value 1500 at frame 1, codebook 3 is outside [0, 1024)");
}

TEST(VoiceFile, HiddenSizeMustBeAWholeNumber) {
    const std::string header =
        R"({"__metadata__":{"format":"qwen3tts-voice","version":"1","mode":"x_vector",)"
        R"("hidden_size":"32abc"},"x_vector":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})";
    const std::string path = tmp("hidden.voice");
    std::ofstream out(path, std::ios::binary);
    const uint64_t n = header.size();
    out.write(reinterpret_cast<const char*>(&n), 8);
    out << header << std::string(4, '\0');
    out.close();
    EXPECT_EQ(error_of([&] { load_voice_file(path); }),
              path + ": metadata hidden_size '32abc' is not a positive number");
}

TEST(VoiceFile, MalformedMetadataAndCodesAreErrors) {
    VoiceFile v = fitting_voice();
    v.voice.ref_codes[5] = -1;
    save_voice_file(tmp("neg.voice"), v);
    EXPECT_EQ(error_of([&] { load_voice_file(tmp("neg.voice")); }),
              tmp("neg.voice") + ": ref_codes value -1 at frame 0 is negative");
    v = fitting_voice();
    v.n_codebook = 5;  // 32 codes are not whole frames of 5
    EXPECT_EQ(error_of([&] { save_voice_file(tmp("odd.voice"), v); }),
              tmp("odd.voice") + ": 32 reference codes are not whole frames of 5 codes");
}

}  // namespace
}  // namespace qwen3tts
