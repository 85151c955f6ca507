// speech_tokenizer/config.json as untrusted input: adversarial stride lists, dilations and sizes
// are errors naming the field (no int overflow, no shift past the width), and the sizes shared
// with the talker are checked when the model loads.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/error.hpp"
#include "model/codec_config.hpp"
#include "model/codec_encoder_config.hpp"
#include "model/tts_model.hpp"
#include "support/test_support.hpp"

namespace qwen3tts {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json read_json(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return json::parse(ss.str());
}

json tiny_codec_config() {
    return read_json(testing::model_dir("tiny-base") + "/speech_tokenizer/config.json");
}

template <typename Parse>
std::string parse_error(Parse parse, const std::function<void(json&)>& edit) {
    json cfg = tiny_codec_config();
    edit(cfg);
    try {
        parse(cfg.dump(), "cfg.json");
    } catch (const Error& e) {
        EXPECT_NE(e.code(), ErrorCode::internal) << e.what();
        return e.what();
    }
    ADD_FAILURE() << "accepted " << cfg.dump();
    return "";
}

std::string decoder_error(const std::function<void(json&)>& edit) {
    return parse_error(parse_codec_decoder_config, edit);
}

std::string encoder_error(const std::function<void(json&)>& edit) {
    return parse_error(parse_codec_encoder_config, edit);
}

#define EXPECT_HAS(text, needle) EXPECT_NE((text).find(needle), std::string::npos) << (text)

TEST(config_codec, TinyConfigParses) {
    const json cfg = tiny_codec_config();
    EXPECT_EQ(parse_codec_decoder_config(cfg.dump(), "cfg.json").total_upsample(), 1920);
    EXPECT_EQ(parse_codec_encoder_config(cfg.dump(), "cfg.json").samples_per_frame(), 1920);
}

TEST(config_codec, DecoderStrideProductsCannotOverflow) {
    // 1024^8 · 1024^8 overflows any integer type: an error, not a wrapped product.
    std::string e = decoder_error([](json& c) {
        c["decoder_config"]["upsampling_ratios"] = json::array();
        for (int i = 0; i < 8; ++i) c["decoder_config"]["upsampling_ratios"].push_back(1024);
        c["decoder_config"]["upsample_rates"] = c["decoder_config"]["upsampling_ratios"];
        c["decoder_config"]["decoder_dim"] = 1 << 16;
        c.erase("decode_upsample_rate");
    });
    EXPECT_HAS(e,
               "cfg.json: decode_upsample_rate: prod(upsampling_ratios + upsample_rates) "
               "exceeds 1048576 samples per frame");
    e = decoder_error([](json& c) { c["decoder_config"]["upsample_rates"] = {8, 5, 0, 3}; });
    EXPECT_HAS(e, "decoder_config.upsample_rates[2]: must be in [1, 1024], got 0");
    e = decoder_error([](json& c) { c["decoder_config"]["upsampling_ratios"] = {2, -2}; });
    EXPECT_HAS(e, "decoder_config.upsampling_ratios[1]: must be in [1, 1024], got -2");
    e = decoder_error([](json& c) { c["decoder_config"]["upsampling_ratios"] = {2, 2147483647}; });
    EXPECT_HAS(e, "decoder_config.upsampling_ratios[1]: must be in [1, 1024], got 2147483647");
}

TEST(config_codec, DecoderBlockCountCannotShiftPastTheWidth) {
    // decoder_dim >> len(upsample_rates) would be undefined for 40 blocks.
    const std::string e = decoder_error([](json& c) {
        c["decoder_config"]["upsample_rates"] = json::array();
        for (int i = 0; i < 40; ++i) c["decoder_config"]["upsample_rates"].push_back(1);
    });
    EXPECT_HAS(e, "decoder_config.upsample_rates: has 40 entries; at most 8 are supported");
}

TEST(config_codec, DecoderSizesAreBounded) {
    EXPECT_HAS(decoder_error([](json& c) { c["decoder_config"]["codebook_size"] = 2147483647; }),
               "decoder_config.codebook_size: must be in [1, 1048576], got 2147483647");
    EXPECT_HAS(decoder_error([](json& c) { c["decoder_config"]["num_quantizers"] = 1; }),
               "decoder_config.num_quantizers: must be in [2, 64], got 1");
    EXPECT_HAS(decoder_error([](json& c) { c["decoder_config"]["num_hidden_layers"] = -1; }),
               "decoder_config.num_hidden_layers: must be in [1, 1024], got -1");
    EXPECT_HAS(decoder_error([](json& c) { c["decoder_config"]["rope_theta"] = 0; }),
               "decoder_config.rope_theta: must be > 0");
    EXPECT_HAS(decoder_error([](json& c) { c["output_sample_rate"] = 0; }),
               "cfg.json: output_sample_rate: must be in [1, 1000000], got 0");
}

TEST(config_codec, EncoderStrideProductCannotOverflow) {
    std::string e = encoder_error([](json& c) {
        c["encoder_config"]["upsampling_ratios"] = json::array();
        for (int i = 0; i < 8; ++i) c["encoder_config"]["upsampling_ratios"].push_back(1024);
        c.erase("encode_downsample_rate");
    });
    EXPECT_HAS(e,
               "encoder_config.upsampling_ratios: their product exceeds 1048576 samples "
               "per frame");
    e = encoder_error([](json& c) { c["encoder_config"]["upsampling_ratios"] = {8, 6, 0, 4}; });
    EXPECT_HAS(e, "encoder_config.upsampling_ratios[2]: must be in [1, 1024], got 0");
}

TEST(config_codec, EncoderDilationsCannotOverflow) {
    // Dilations grow as rate^j over the residual layers: 1000^9 overflows.
    const std::string e = encoder_error([](json& c) {
        c["encoder_config"]["dilation_growth_rate"] = 1000;
        c["encoder_config"]["num_residual_layers"] = 10;
    });
    EXPECT_HAS(e, "encoder_config.dilation_growth_rate: 1000^9 (the last dilation) exceeds 65536");
    EXPECT_HAS(encoder_error([](json& c) { c["encoder_config"]["num_residual_layers"] = -1; }),
               "encoder_config.num_residual_layers: must be in [0, 64], got -1");
}

TEST(config_codec, EncoderFrameRateRatioStaysDefined) {
    // sample_rate / hop / frame_rate would not fit an int: unsupported, not undefined.
    const std::string e =
        encoder_error([](json& c) { c["encoder_config"]["_frame_rate"] = 1e-300; });
    EXPECT_HAS(e, "encoder_config._frame_rate: unsupported ratio to the SEANet rate 25");
    EXPECT_HAS(encoder_error([](json& c) { c["encoder_config"]["_frame_rate"] = -12.5; }),
               "encoder_config._frame_rate: must be > 0");
}

TEST(config_codec, EncoderSizesAreBounded) {
    EXPECT_HAS(encoder_error([](json& c) { c["encoder_config"]["num_quantizers"] = 1 << 20; }),
               "encoder_config.num_quantizers: must be in [1, 1024], got 1048576");
    EXPECT_HAS(encoder_error([](json& c) { c["encoder_config"]["kernel_size"] = 0; }),
               "encoder_config.kernel_size: must be in [1, 1024], got 0");
    EXPECT_HAS(encoder_error([](json& c) { c["encoder_config"]["hidden_size"] = 3e9; }),
               "encoder_config.hidden_size: must be in");
}

// ---- sizes shared by the talker and the codec, checked by TtsModel::load ----------------

// A copy of a tiny checkpoint (links to its big files) with speech_tokenizer/config.json or
// config.json edited.
std::string checkpoint(const std::string& variant, const std::function<void(json&)>& edit_codec,
                       const std::function<void(json&)>& edit_config = {}) {
    const std::string src = testing::model_dir(variant);
    const std::string dir = testing::tmp_dir() + "/config_codec_" +
                            ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir);
    fs::create_directories(dir + "/speech_tokenizer");
    for (const auto& entry : fs::directory_iterator(src))
        if (entry.is_regular_file())
            fs::create_symlink(entry.path(), dir + "/" + entry.path().filename().string());
    for (const auto& entry : fs::directory_iterator(src + "/speech_tokenizer"))
        fs::create_symlink(entry.path(),
                           dir + "/speech_tokenizer/" + entry.path().filename().string());
    json codec = read_json(src + "/speech_tokenizer/config.json");
    edit_codec(codec);
    fs::remove(dir + "/speech_tokenizer/config.json");
    std::ofstream(dir + "/speech_tokenizer/config.json") << codec.dump(2);
    if (edit_config) {
        json cfg = read_json(src + "/config.json");
        edit_config(cfg);
        fs::remove(dir + "/config.json");
        std::ofstream(dir + "/config.json") << cfg.dump(2);
    }
    return dir;
}

std::string model_error(const std::string& dir) {
    try {
        TtsModel::load(dir);
    } catch (const Error& e) {
        return e.what();
    }
    ADD_FAILURE() << "loaded " << dir;
    return "";
}

TEST(config_codec, CopiedCheckpointLoads) {
    const std::string dir = checkpoint("tiny-base", [](json&) {});
    EXPECT_EQ(TtsModel::load(dir)->config().talker.num_code_groups, 16);
}

TEST(config_codec, CodeGroupsMustMatchTheCodecQuantizers) {
    const std::string dir =
        checkpoint("tiny-custom_voice", [](json& c) { c["decoder_config"]["num_quantizers"] = 8; });
    EXPECT_HAS(model_error(dir),
               "speech_tokenizer/config.json: decoder_config.num_quantizers 8 "
               "differs from " +
                   dir + "/config.json: talker_config.num_code_groups 16");
}

TEST(config_codec, PredictorCodesMustFitTheCodebooks) {
    const std::string dir = checkpoint(
        "tiny-custom_voice", [](json& c) { c["decoder_config"]["codebook_size"] = 1024; });
    EXPECT_HAS(model_error(dir), "talker_config.code_predictor_config.vocab_size 2048 exceeds " +
                                     dir +
                                     "/speech_tokenizer/config.json: decoder_config.codebook_size "
                                     "1024");
}

TEST(config_codec, EncoderCodesMustMatchTheTalker) {
    std::string dir =
        checkpoint("tiny-base", [](json& c) { c["encoder_valid_num_quantizers"] = 8; });
    EXPECT_HAS(model_error(dir),
               "speech_tokenizer/config.json: encoder_valid_num_quantizers 8 "
               "differs from " +
                   dir + "/config.json: talker_config.num_code_groups 16");
    dir = checkpoint("tiny-base", [](json& c) { c["encoder_config"]["codebook_size"] = 4096; });
    EXPECT_HAS(model_error(dir), "encoder_config.codebook_size 4096 exceeds " + dir +
                                     "/config.json: talker_config.code_predictor_config."
                                     "vocab_size 2048");
}

TEST(config_codec, TokenizerIdsMustFitTheTextEmbedding) {
    const std::string dir = checkpoint(
        "tiny-custom_voice", [](json&) {},
        [](json& c) { c["talker_config"]["text_vocab_size"] = 151674; });
    EXPECT_HAS(model_error(dir), "has 151676 ids, more than " + dir +
                                     "/config.json: talker_config.text_vocab_size 151674");
}

}  // namespace
}  // namespace qwen3tts
