// Every field of a Qwen3-TTS checkpoint's config.json and generation_config.json, with the
// values of the file (the Python class defaults match no released checkpoint, spec talker.md
// §1.3, so nothing structural is defaulted here: a missing field is an error naming it).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace qwen3tts {

enum class ModelType { custom_voice, voice_design, base };
const char* model_type_name(ModelType t);

// One Qwen3 decoder stack (talker or code predictor).
struct TransformerConfig {
    int hidden_size = 0;
    int intermediate_size = 0;
    int num_hidden_layers = 0;
    int num_attention_heads = 0;
    int num_key_value_heads = 0;
    int head_dim = 0;
    float rms_norm_eps = 1e-6f;
    double rope_theta = 0;
    int max_position_embeddings = 0;
    int vocab_size = 0;
    int num_code_groups = 0;
    std::string hidden_act;
};

struct TalkerConfig : TransformerConfig {
    int text_hidden_size = 0;
    int text_vocab_size = 0;
    int codec_pad_id = 0, codec_bos_id = 0, codec_eos_id = 0;
    int codec_think_id = 0, codec_nothink_id = 0, codec_think_bos_id = 0, codec_think_eos_id = 0;
    std::map<std::string, int> codec_language_id;    // lower-case keys, dialects included
    std::map<std::string, int> spk_id;               // lower-case speaker → codec row
    std::map<std::string, std::string> spk_dialect;  // speaker → dialect key ("" = none)
    TransformerConfig code_predictor;
};

struct SpeakerEncoderConfig {
    bool present = false;
    int mel_dim = 128;
    int enc_dim = 0;
    std::vector<int> enc_channels, enc_kernel_sizes, enc_dilations;
    int enc_attention_channels = 0, enc_res2net_scale = 0, enc_se_channels = 0;
    int sample_rate = 24000;
};

// generation_config.json (sampling defaults of the official wrapper).
struct GenerationDefaults {
    bool do_sample = true;
    float temperature = 0.9f;
    int top_k = 50;
    float top_p = 1.0f;
    float repetition_penalty = 1.05f;
    bool subtalker_do_sample = true;
    float subtalker_temperature = 0.9f;
    int subtalker_top_k = 50;
    float subtalker_top_p = 1.0f;
    int max_new_tokens = 8192;
};

struct ModelConfig {
    std::string dir;
    ModelType type = ModelType::custom_voice;
    std::string size;  // tts_model_size: "0b6", "1b7", ...
    std::string transformers_version;
    int tts_pad_token_id = 0, tts_bos_token_id = 0, tts_eos_token_id = 0;
    TalkerConfig talker;
    SpeakerEncoderConfig speaker_encoder;
    GenerationDefaults generation;

    // "auto" + the language keys that are not dialects (official get_supported_languages).
    std::vector<std::string> languages() const;
    std::vector<std::string> dialects() const;
    std::vector<std::string> speakers() const;
    // The official 0.6B check is a substring test: `size in "0b6"`.
    bool ignores_instruction() const;
    std::string size_label() const;  // "0.6B", "1.7B" or the raw tag
};

// Reads <dir>/config.json and <dir>/generation_config.json.
ModelConfig load_model_config(const std::string& dir);

}  // namespace qwen3tts
