#include "model/config.hpp"

#include <fstream>
#include <nlohmann/json.hpp>

#include "core/error.hpp"

namespace qwen3tts {

namespace {

using nlohmann::json;

json read_json(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw Error(ErrorCode::io, path + ": cannot open (missing file?)");
    try {
        return json::parse(in);
    } catch (const std::exception& e) {
        throw Error(ErrorCode::format, path + ": invalid JSON (" + e.what() + ")");
    }
}

// Typed field access that names the file and the JSON path on failure.
struct Fields {
    const json& j;
    std::string where;  // "<file>: talker_config"

    const json& at(const std::string& key) const {
        if (!j.is_object() || !j.contains(key) || j.at(key).is_null())
            throw Error(ErrorCode::format, where + "." + key + " is missing");
        return j.at(key);
    }
    template <typename T>
    T get(const std::string& key) const {
        try {
            return at(key).get<T>();
        } catch (const Error&) {
            throw;
        } catch (const std::exception&) {
            throw Error(ErrorCode::format, where + "." + key + " has the wrong type (" +
                                               at(key).dump() + ")");
        }
    }
    template <typename T>
    T get_or(const std::string& key, T fallback) const {
        return j.contains(key) && !j.at(key).is_null() ? get<T>(key) : fallback;
    }
    int positive(const std::string& key) const {
        const int v = get<int>(key);
        if (v <= 0) throw Error(ErrorCode::format, where + "." + key + " must be positive, got " +
                                                       std::to_string(v));
        return v;
    }
    Fields sub(const std::string& key) const { return Fields{at(key), where + "." + key}; }
};

void read_transformer(const Fields& f, TransformerConfig& c) {
    c.hidden_size = f.positive("hidden_size");
    c.intermediate_size = f.positive("intermediate_size");
    c.num_hidden_layers = f.positive("num_hidden_layers");
    c.num_attention_heads = f.positive("num_attention_heads");
    c.num_key_value_heads = f.positive("num_key_value_heads");
    c.head_dim = f.positive("head_dim");
    c.rms_norm_eps = f.get<float>("rms_norm_eps");
    c.rope_theta = f.get<double>("rope_theta");
    c.max_position_embeddings = f.positive("max_position_embeddings");
    c.vocab_size = f.positive("vocab_size");
    c.num_code_groups = f.positive("num_code_groups");
    c.hidden_act = f.get<std::string>("hidden_act");
    if (c.hidden_act != "silu")
        throw Error(ErrorCode::unsupported, f.where + ".hidden_act '" + c.hidden_act +
                                                "' is not supported (expected silu)");
    if (c.num_attention_heads % c.num_key_value_heads != 0)
        throw Error(ErrorCode::format, f.where + ": num_attention_heads must be a multiple of "
                                                 "num_key_value_heads");
    if (c.head_dim % 2 != 0)
        throw Error(ErrorCode::format, f.where + ".head_dim must be even for RoPE");
}

std::string lower(std::string s) {
    for (auto& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

}  // namespace

const char* model_type_name(ModelType t) {
    switch (t) {
        case ModelType::custom_voice: return "custom_voice";
        case ModelType::voice_design: return "voice_design";
        case ModelType::base: return "base";
    }
    return "?";
}

std::vector<std::string> ModelConfig::languages() const {
    std::vector<std::string> out{"auto"};
    for (const auto& kv : talker.codec_language_id)
        if (kv.first.find("dialect") == std::string::npos) out.push_back(kv.first);
    return out;
}

std::vector<std::string> ModelConfig::dialects() const {
    std::vector<std::string> out;
    for (const auto& kv : talker.codec_language_id)
        if (kv.first.find("dialect") != std::string::npos) out.push_back(kv.first);
    return out;
}

std::vector<std::string> ModelConfig::speakers() const {
    std::vector<std::string> out;
    for (const auto& kv : talker.spk_id) out.push_back(kv.first);
    return out;
}

bool ModelConfig::ignores_instruction() const {
    // Python `size in "0b6"`: true when size is a substring of "0b6".
    return std::string("0b6").find(size) != std::string::npos;
}

std::string ModelConfig::size_label() const {
    if (size == "0b6") return "0.6B";
    if (size == "1b7") return "1.7B";
    return size;
}

ModelConfig load_model_config(const std::string& dir) {
    ModelConfig c;
    c.dir = dir;
    const std::string path = dir + "/config.json";
    const json root = read_json(path);
    const Fields top{root, path + ": config"};

    const std::string model_type = top.get<std::string>("model_type");
    if (model_type != "qwen3_tts")
        throw Error(ErrorCode::unsupported, path + ": model_type '" + model_type +
                                                "' is not a Qwen3-TTS model (expected qwen3_tts)");
    const std::string type = top.get<std::string>("tts_model_type");
    if (type == "custom_voice") c.type = ModelType::custom_voice;
    else if (type == "voice_design") c.type = ModelType::voice_design;
    else if (type == "base") c.type = ModelType::base;
    else
        throw Error(ErrorCode::unsupported, path + ": tts_model_type '" + type +
                                                "' is unknown (custom_voice, voice_design, base)");
    const std::string tokenizer_type = top.get_or<std::string>("tokenizer_type", "");
    if (tokenizer_type != "qwen3_tts_tokenizer_12hz")
        throw Error(ErrorCode::unsupported, path + ": tokenizer_type '" + tokenizer_type +
                                                "' is not supported (only the 12 Hz models)");
    c.size = top.get<std::string>("tts_model_size");
    c.transformers_version = top.get_or<std::string>("transformers_version", "");
    c.im_start_token_id = top.get_or<int>("im_start_token_id", 151644);
    c.im_end_token_id = top.get_or<int>("im_end_token_id", 151645);
    c.assistant_token_id = top.get_or<int>("assistant_token_id", 77091);
    c.tts_pad_token_id = top.get<int>("tts_pad_token_id");
    c.tts_bos_token_id = top.get<int>("tts_bos_token_id");
    c.tts_eos_token_id = top.get<int>("tts_eos_token_id");

    const Fields tf = top.sub("talker_config");
    TalkerConfig& t = c.talker;
    read_transformer(tf, t);
    t.text_hidden_size = tf.positive("text_hidden_size");
    t.text_vocab_size = tf.positive("text_vocab_size");
    t.codec_pad_id = tf.get<int>("codec_pad_id");
    t.codec_bos_id = tf.get<int>("codec_bos_id");
    t.codec_eos_id = tf.get<int>("codec_eos_token_id");
    t.codec_think_id = tf.get<int>("codec_think_id");
    t.codec_nothink_id = tf.get<int>("codec_nothink_id");
    t.codec_think_bos_id = tf.get<int>("codec_think_bos_id");
    t.codec_think_eos_id = tf.get<int>("codec_think_eos_id");
    for (const auto& kv : tf.at("codec_language_id").items())
        t.codec_language_id[lower(kv.key())] = kv.value().get<int>();
    if (tf.j.contains("spk_id"))
        for (const auto& kv : tf.at("spk_id").items()) {
            const json& v = kv.value();
            // CustomVoice stores a single id; tolerate a one-element list as well.
            t.spk_id[lower(kv.key())] = v.is_array() ? v.at(0).get<int>() : v.get<int>();
        }
    if (tf.j.contains("spk_is_dialect"))
        for (const auto& kv : tf.at("spk_is_dialect").items())
            t.spk_dialect[lower(kv.key())] =
                kv.value().is_string() ? lower(kv.value().get<std::string>()) : "";
    if (tf.j.contains("rope_scaling") && tf.j.at("rope_scaling").is_object() &&
        tf.j.at("rope_scaling").contains("mrope_section"))
        t.mrope_section = tf.j.at("rope_scaling").at("mrope_section").get<std::vector<int>>();
    for (const auto& kv : t.codec_language_id)
        if (kv.second < 0 || kv.second >= t.vocab_size)
            throw Error(ErrorCode::format, path + ": talker_config.codec_language_id." + kv.first +
                                               " = " + std::to_string(kv.second) +
                                               " lies outside the codec vocabulary");
    for (const auto& kv : t.spk_id)
        if (kv.second < 0 || kv.second >= t.vocab_size)
            throw Error(ErrorCode::format, path + ": talker_config.spk_id." + kv.first + " = " +
                                               std::to_string(kv.second) +
                                               " lies outside the codec vocabulary");
    read_transformer(tf.sub("code_predictor_config"), t.code_predictor);
    if (t.num_code_groups != t.code_predictor.num_code_groups)
        throw Error(ErrorCode::format, path + ": talker and code predictor disagree on "
                                              "num_code_groups");

    if (root.contains("speaker_encoder_config") && root["speaker_encoder_config"].is_object() &&
        !root["speaker_encoder_config"].empty()) {
        const Fields sf = top.sub("speaker_encoder_config");
        SpeakerEncoderConfig& s = c.speaker_encoder;
        s.present = true;
        s.enc_dim = sf.get_or<int>("enc_dim", 1024);
        s.mel_dim = sf.get_or<int>("mel_dim", 128);
        s.sample_rate = sf.get_or<int>("sample_rate", 24000);
        s.enc_channels = sf.get_or<std::vector<int>>("enc_channels", {512, 512, 512, 512, 1536});
        s.enc_kernel_sizes = sf.get_or<std::vector<int>>("enc_kernel_sizes", {5, 3, 3, 3, 1});
        s.enc_dilations = sf.get_or<std::vector<int>>("enc_dilations", {1, 2, 3, 4, 1});
        s.enc_attention_channels = sf.get_or<int>("enc_attention_channels", 128);
        s.enc_res2net_scale = sf.get_or<int>("enc_res2net_scale", 8);
        s.enc_se_channels = sf.get_or<int>("enc_se_channels", 128);
    }

    const std::string gen_path = dir + "/generation_config.json";
    const json gen_root = read_json(gen_path);
    const Fields g{gen_root, gen_path + ": generation_config"};
    GenerationDefaults& d = c.generation;
    d.do_sample = g.get_or<bool>("do_sample", d.do_sample);
    d.temperature = g.get_or<float>("temperature", d.temperature);
    d.top_k = g.get_or<int>("top_k", d.top_k);
    d.top_p = g.get_or<float>("top_p", d.top_p);
    d.repetition_penalty = g.get_or<float>("repetition_penalty", d.repetition_penalty);
    d.subtalker_do_sample = g.get_or<bool>("subtalker_dosample", d.subtalker_do_sample);
    d.subtalker_temperature = g.get_or<float>("subtalker_temperature", d.subtalker_temperature);
    d.subtalker_top_k = g.get_or<int>("subtalker_top_k", d.subtalker_top_k);
    d.subtalker_top_p = g.get_or<float>("subtalker_top_p", d.subtalker_top_p);
    d.max_new_tokens = g.get_or<int>("max_new_tokens", d.max_new_tokens);
    return c;
}

}  // namespace qwen3tts
