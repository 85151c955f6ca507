// config.json / generation_config.json of a checkpoint as untrusted input: every id is checked
// against the vocabulary it indexes and every size against sane bounds, once at load, with an
// error naming the file, the JSON path, the value and the limit.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/error.hpp"
#include "model/config.hpp"
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

// A directory holding a tiny checkpoint's two config files, config.json edited by `edit`.
std::string config_dir(const std::string& variant, const std::function<void(json&)>& edit,
                       const std::function<void(json&)>& edit_generation = {}) {
    const std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    const std::string dir = testing::tmp_dir() + "/config_model_" + name;
    fs::remove_all(dir);
    fs::create_directories(dir);
    json cfg = read_json(testing::model_dir(variant) + "/config.json");
    json gen = read_json(testing::model_dir(variant) + "/generation_config.json");
    edit(cfg);
    if (edit_generation) edit_generation(gen);
    std::ofstream(dir + "/config.json") << cfg.dump(2);
    std::ofstream(dir + "/generation_config.json") << gen.dump(2);
    return dir;
}

// The message of the Error that loading `dir` throws ("" if none).
std::string load_error(const std::string& dir, ErrorCode expected = ErrorCode::format) {
    try {
        load_model_config(dir);
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), expected) << e.what();
        return e.what();
    }
    ADD_FAILURE() << "no error loading " << dir;
    return "";
}

#define EXPECT_HAS(text, needle) EXPECT_NE((text).find(needle), std::string::npos) << (text)

TEST(config_model, TinyCheckpointsLoad) {
    for (const char* v : {"tiny-custom_voice", "tiny-voice_design", "tiny-base"}) {
        const ModelConfig c = load_model_config(testing::model_dir(v));
        EXPECT_EQ(c.talker.codec_eos_id, 2150) << v;
        EXPECT_EQ(c.talker.vocab_size, 3072) << v;
        EXPECT_EQ(c.tts_pad_token_id, 151671) << v;
    }
}

TEST(config_model, CodecEosIdOutsideTheCodecVocabulary) {
    const std::string dir = config_dir(
        "tiny-custom_voice", [](json& c) { c["talker_config"]["codec_eos_token_id"] = 100000; });
    const std::string e = load_error(dir);
    EXPECT_HAS(e, dir +
                      "/config.json: talker_config.codec_eos_token_id: 100000 is outside "
                      "[0, 3072) (talker_config.vocab_size)");
}

TEST(config_model, EveryCodecControlIdIsChecked) {
    for (const char* key : {"codec_pad_id", "codec_bos_id", "codec_think_id", "codec_nothink_id",
                            "codec_think_bos_id", "codec_think_eos_id"}) {
        const std::string dir =
            config_dir("tiny-custom_voice", [&](json& c) { c["talker_config"][key] = 3072; });
        EXPECT_HAS(load_error(dir), std::string("talker_config.") + key + ": 3072 is outside");
    }
    const std::string neg =
        config_dir("tiny-custom_voice", [](json& c) { c["talker_config"]["codec_bos_id"] = -1; });
    EXPECT_HAS(load_error(neg), "talker_config.codec_bos_id: must be in [0, 2147483647], got -1");
}

TEST(config_model, LanguageAndSpeakerIdsAreChecked) {
    std::string dir = config_dir("tiny-custom_voice", [](json& c) {
        c["talker_config"]["codec_language_id"]["english"] = 5000;
    });
    EXPECT_HAS(load_error(dir),
               "talker_config.codec_language_id.english: 5000 is outside "
               "[0, 3072)");
    dir = config_dir("tiny-custom_voice",
                     [](json& c) { c["talker_config"]["spk_id"]["ryan"] = 2147483647; });
    EXPECT_HAS(load_error(dir), "talker_config.spk_id.ryan: 2147483647 is outside [0, 3072)");
    dir = config_dir("tiny-custom_voice",
                     [](json& c) { c["talker_config"]["spk_id"]["ryan"] = json::array(); });
    EXPECT_HAS(load_error(dir), "talker_config.spk_id.ryan: expected an integer, got []");
    dir = config_dir("tiny-custom_voice",
                     [](json& c) { c["talker_config"]["codec_language_id"]["english"] = "2050"; });
    EXPECT_HAS(load_error(dir), "talker_config.codec_language_id.english: expected an integer");
}

TEST(config_model, TextTokenIdsIndexTheTextVocabulary) {
    for (const char* key : {"tts_pad_token_id", "tts_bos_token_id", "tts_eos_token_id"}) {
        const std::string dir = config_dir("tiny-custom_voice", [&](json& c) { c[key] = 151936; });
        EXPECT_HAS(load_error(dir), std::string(key) +
                                        ": 151936 is outside [0, 151936) "
                                        "(talker_config.text_vocab_size)");
    }
}

TEST(config_model, MropeSectionsMustCoverTheRotaryHalf) {
    // head_dim 32 (tiny talker): 16 rotary pairs
    const std::string ok = config_dir("tiny-custom_voice", [](json& c) {
        c["talker_config"]["rope_scaling"] = {{"mrope_section", {6, 5, 5}},
                                              {"rope_type", "default"}};
    });
    EXPECT_NO_THROW(load_model_config(ok));
    const std::string bad = config_dir("tiny-custom_voice", [](json& c) {
        c["talker_config"]["rope_scaling"] = {{"mrope_section", {24, 20, 20}}};
    });
    EXPECT_HAS(load_error(bad),
               "talker_config.rope_scaling.mrope_section: sections cover 64 "
               "rotary pairs, but head_dim 32 has 16");
}

TEST(config_model, SizesAreBounded) {
    struct Case {
        const char* path;  // talker_config key, or code_predictor_config key after '/'
        json value;
        const char* message;
    };
    const Case cases[] = {
        {"num_hidden_layers", 0, "talker_config.num_hidden_layers: must be in [1, 1024], got 0"},
        {"hidden_size", -32, "talker_config.hidden_size: must be in [1, 131072], got -32"},
        {"head_dim", 1 << 30, "talker_config.head_dim: must be in [2, 4096], got 1073741824"},
        {"head_dim", 31, "talker_config.head_dim: must be even for RoPE, got 31"},
        {"num_key_value_heads", 3,
         "talker_config.num_key_value_heads: 3 does not divide num_attention_heads 4"},
        {"max_position_embeddings", 2147483647,
         "talker_config.max_position_embeddings: must be in [1, 1048576], got 2147483647"},
        {"vocab_size", 1e12, "talker_config.vocab_size: must be in [1, 16777216]"},
        {"rope_theta", 0, "talker_config.rope_theta: must be > 0, got 0"},
        {"rope_theta", -1, "talker_config.rope_theta: must be in [0, 1e+12], got -1"},
        {"rms_norm_eps", "tiny", "talker_config.rms_norm_eps: expected a number, got \"tiny\""},
        {"intermediate_size", 64.5,
         "talker_config.intermediate_size: expected an integer, got 64.5"},
        {"text_vocab_size", 0, "talker_config.text_vocab_size: must be in [1, 16777216], got 0"},
        {"/num_attention_heads", 0,
         "talker_config.code_predictor_config.num_attention_heads: must be in [1, 1024], got 0"},
        {"/num_code_groups", 8,
         "talker_config.code_predictor_config.num_code_groups: 8 differs from "
         "talker_config.num_code_groups 16"},
        {"/vocab_size", 4096,
         "talker_config.code_predictor_config.vocab_size: 4096 exceeds talker_config.vocab_size "
         "3072"},
    };
    for (const Case& k : cases) {
        const std::string path = k.path;
        const std::string dir = config_dir("tiny-custom_voice", [&](json& c) {
            if (path[0] == '/')
                c["talker_config"]["code_predictor_config"][path.substr(1)] = k.value;
            else
                c["talker_config"][path] = k.value;
        });
        EXPECT_HAS(load_error(dir), std::string(k.message));
    }
}

TEST(config_model, MissingFieldIsNamed) {
    const std::string dir = config_dir("tiny-custom_voice", [](json& c) {
        c["talker_config"]["code_predictor_config"].erase("head_dim");
    });
    EXPECT_HAS(load_error(dir), dir +
                                    "/config.json: talker_config.code_predictor_config.head_dim: "
                                    "missing");
}

TEST(config_model, BaseSpeakerEncoderWidthMatchesTheTalker) {
    const std::string dir =
        config_dir("tiny-base", [](json& c) { c["speaker_encoder_config"]["enc_dim"] = 64; });
    EXPECT_HAS(load_error(dir),
               "speaker_encoder_config.enc_dim: 64 differs from "
               "talker_config.hidden_size 32");
    const std::string lists = config_dir("tiny-base", [](json& c) {
        c["speaker_encoder_config"]["enc_dilations"] = json::array({1, 2, 3, -4, 1});
    });
    EXPECT_HAS(load_error(lists),
               "speaker_encoder_config.enc_dilations[3]: must be in [1, 1024], "
               "got -4");
}

TEST(config_model, GenerationConfigIsBounded) {
    const auto same = [](json&) {};
    std::string dir =
        config_dir("tiny-custom_voice", same, [](json& g) { g["max_new_tokens"] = 2147483647; });
    EXPECT_HAS(load_error(dir), dir +
                                    "/generation_config.json: max_new_tokens: must be in "
                                    "[2, 2147483646], got 2147483647");
    dir = config_dir("tiny-custom_voice", same, [](json& g) { g["top_p"] = 5; });
    EXPECT_HAS(load_error(dir), "generation_config.json: top_p: must be in [0, 1], got 5");
    dir = config_dir("tiny-custom_voice", same, [](json& g) { g["temperature"] = 1e300; });
    EXPECT_HAS(load_error(dir), "generation_config.json: temperature: must be in [0, 1e+06]");
}

TEST(config_model, OversizedConfigIsRefusedUnread) {
    const std::string dir = config_dir("tiny-custom_voice", [](json&) {});
    // A sparse 1 GiB file: refused from its size, never read into memory.
    ASSERT_EQ(::truncate((dir + "/config.json").c_str(), off_t(1) << 30), 0);
    EXPECT_HAS(load_error(dir),
               "model config " + dir + "/config.json is 1073741824 bytes; the limit is 16777216");
}

}  // namespace
}  // namespace qwen3tts
