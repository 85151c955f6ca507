#include "model/config.hpp"

#include <cctype>

#include "core/error.hpp"
#include "core/json_fields.hpp"
#include "core/strings.hpp"

namespace qwen3tts {

namespace {

using nlohmann::json;

// Sane upper bounds: far above any released checkpoint (the 1.7B talker is 2048 wide, 28
// layers, 32768 positions), low enough that no product of them overflows or allocates absurdly.
constexpr int kMaxWidth = 1 << 17;  // hidden and intermediate sizes
constexpr int kMaxLayers = 1024;
constexpr int kMaxHeads = 1024;
constexpr int kMaxHeadDim = 4096;
constexpr int kMaxPositions = 1 << 20;  // the talker's KV cache is reserved for its context
constexpr int kMaxVocab = 1 << 24;
constexpr int kMaxCodeGroups = 64;
constexpr int kIntMax = 2147483647;
constexpr uint64_t kMaxConfigBytes = uint64_t(16) << 20;

// A positive number up to `hi` (epsilons, RoPE bases).
double positive_number(const JsonFields& f, const std::string& key, double hi) {
    const double v = f.get_number(key, 0.0, hi);
    if (!(v > 0.0)) f.fail(key, "must be > 0, got " + f.at(key).dump());
    return v;
}

void read_transformer(const JsonFields& f, TransformerConfig& c) {
    c.hidden_size = f.get_int("hidden_size", 1, kMaxWidth);
    c.intermediate_size = f.get_int("intermediate_size", 1, kMaxWidth);
    c.num_hidden_layers = f.get_int("num_hidden_layers", 1, kMaxLayers);
    c.num_attention_heads = f.get_int("num_attention_heads", 1, kMaxHeads);
    c.num_key_value_heads = f.get_int("num_key_value_heads", 1, kMaxHeads);
    c.head_dim = f.get_int("head_dim", 2, kMaxHeadDim);
    c.rms_norm_eps = float(positive_number(f, "rms_norm_eps", 1.0));
    c.rope_theta = positive_number(f, "rope_theta", 1e12);
    c.max_position_embeddings = f.get_int("max_position_embeddings", 1, kMaxPositions);
    c.vocab_size = f.get_int("vocab_size", 1, kMaxVocab);
    c.num_code_groups = f.get_int("num_code_groups", 1, kMaxCodeGroups);
    c.hidden_act = f.get_string("hidden_act");
    if (c.hidden_act != "silu")
        f.fail("hidden_act", "'" + c.hidden_act + "' is not supported (expected silu)",
               ErrorCode::unsupported);
    if (c.num_attention_heads % c.num_key_value_heads != 0)
        f.fail("num_key_value_heads", std::to_string(c.num_key_value_heads) +
                                          " does not divide num_attention_heads " +
                                          std::to_string(c.num_attention_heads));
    if (c.head_dim % 2 != 0)
        f.fail("head_dim", "must be even for RoPE, got " + std::to_string(c.head_dim));
}

// An id that indexes a table of `size` rows named by `size_field`.
int read_id(const JsonFields& f, const std::string& key, int size, const std::string& size_field) {
    const int id = f.get_int(key, 0, kIntMax);
    if (id >= size)
        f.fail(key, std::to_string(id) + " is outside [0, " + std::to_string(size) + ") (" +
                        size_field + ")");
    return id;
}

// A {name: id} map whose ids index a table of `size` rows; keys are lower-cased.
std::map<std::string, int> read_id_map(const JsonFields& f, const std::string& key, int size,
                                       const std::string& size_field) {
    const JsonFields m = f.object(key);
    std::map<std::string, int> out;
    for (const auto& kv : m.raw().items()) {
        // CustomVoice stores a single speaker id; tolerate a one-element list as well.
        const json& v =
            kv.value().is_array() && kv.value().size() == 1 ? kv.value()[0] : kv.value();
        const int id = m.int_value(v, kv.key(), 0, kIntMax);
        if (id >= size)
            m.fail(kv.key(), std::to_string(id) + " is outside [0, " + std::to_string(size) +
                                 ") (" + size_field + ")");
        out[ascii_lower(kv.key())] = id;
    }
    return out;
}

}  // namespace

const char* model_type_name(ModelType t) {
    switch (t) {
        case ModelType::custom_voice:
            return "custom_voice";
        case ModelType::voice_design:
            return "voice_design";
        case ModelType::base:
            return "base";
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
    const json root = read_json_file(path, "model config", kMaxConfigBytes);
    const JsonFields top(root, path);

    const std::string model_type = top.get_string("model_type");
    if (model_type != "qwen3_tts")
        top.fail("model_type", "'" + model_type + "' is not a Qwen3-TTS model (expected qwen3_tts)",
                 ErrorCode::unsupported);
    const std::string type = top.get_string("tts_model_type");
    if (type == "custom_voice")
        c.type = ModelType::custom_voice;
    else if (type == "voice_design")
        c.type = ModelType::voice_design;
    else if (type == "base")
        c.type = ModelType::base;
    else
        top.fail("tts_model_type", "'" + type + "' is unknown (custom_voice, voice_design, base)",
                 ErrorCode::unsupported);
    const std::string tokenizer_type = top.get_string_or("tokenizer_type", "");
    if (tokenizer_type != "qwen3_tts_tokenizer_12hz")
        top.fail("tokenizer_type",
                 "'" + tokenizer_type + "' is not supported (only the 12 Hz models)",
                 ErrorCode::unsupported);
    c.size = top.get_string("tts_model_size");
    c.transformers_version = top.get_string_or("transformers_version", "");

    const JsonFields tf = top.object("talker_config");
    TalkerConfig& t = c.talker;
    read_transformer(tf, t);
    t.text_hidden_size = tf.get_int("text_hidden_size", 1, kMaxWidth);
    t.text_vocab_size = tf.get_int("text_vocab_size", 1, kMaxVocab);

    // Text-side special tokens index the text embedding (talker.model.text_embedding).
    const std::string text_rows = "talker_config.text_vocab_size";
    c.tts_pad_token_id = read_id(top, "tts_pad_token_id", t.text_vocab_size, text_rows);
    c.tts_bos_token_id = read_id(top, "tts_bos_token_id", t.text_vocab_size, text_rows);
    c.tts_eos_token_id = read_id(top, "tts_eos_token_id", t.text_vocab_size, text_rows);

    // Codec-side ids index the codec embedding and the codec head (talker_config.vocab_size
    // rows); the session writes logits[codec_eos_token_id].
    const std::string codec_rows = "talker_config.vocab_size";
    t.codec_pad_id = read_id(tf, "codec_pad_id", t.vocab_size, codec_rows);
    t.codec_bos_id = read_id(tf, "codec_bos_id", t.vocab_size, codec_rows);
    t.codec_eos_id = read_id(tf, "codec_eos_token_id", t.vocab_size, codec_rows);
    t.codec_think_id = read_id(tf, "codec_think_id", t.vocab_size, codec_rows);
    t.codec_nothink_id = read_id(tf, "codec_nothink_id", t.vocab_size, codec_rows);
    t.codec_think_bos_id = read_id(tf, "codec_think_bos_id", t.vocab_size, codec_rows);
    t.codec_think_eos_id = read_id(tf, "codec_think_eos_id", t.vocab_size, codec_rows);
    t.codec_language_id = read_id_map(tf, "codec_language_id", t.vocab_size, codec_rows);
    if (tf.has("spk_id")) t.spk_id = read_id_map(tf, "spk_id", t.vocab_size, codec_rows);
    if (tf.has("spk_is_dialect")) {
        const JsonFields d = tf.object("spk_is_dialect");
        for (const auto& kv : d.raw().items()) {
            if (!kv.value().is_string() && !kv.value().is_boolean())
                d.fail(kv.key(), "expected a dialect name or false, got " + kv.value().dump());
            t.spk_dialect[ascii_lower(kv.key())] =
                kv.value().is_string() ? ascii_lower(kv.value().get<std::string>()) : "";
        }
    }
    // diverges: the official talker rotates with M-RoPE (3 position streams, one per
    // mrope_section), but for speech all three streams carry the same position (get_rope_index),
    // so the sectioned rotation is exactly 1-D RoPE, which we apply. The sections must still
    // cover the rotated half of each head, or the checkpoint is not one this holds for.
    if (tf.has("rope_scaling") && tf.at("rope_scaling").is_object()) {
        const JsonFields rs = tf.object("rope_scaling");
        const std::vector<int> sections =
            rs.get_int_list_or("mrope_section", {}, 0, kMaxHeadDim, 8);
        int64_t covered = 0;
        for (int v : sections) covered += v;
        if (!sections.empty() && covered != t.head_dim / 2)
            rs.fail("mrope_section",
                    "sections cover " + std::to_string(covered) + " rotary pairs, but head_dim " +
                        std::to_string(t.head_dim) + " has " + std::to_string(t.head_dim / 2));
    }

    const JsonFields pf = tf.object("code_predictor_config");
    read_transformer(pf, t.code_predictor);
    if (t.num_code_groups != t.code_predictor.num_code_groups)
        pf.fail("num_code_groups", std::to_string(t.code_predictor.num_code_groups) +
                                       " differs from talker_config.num_code_groups " +
                                       std::to_string(t.num_code_groups));
    // Codebook 0 comes from the talker (codec_embedding), codebooks 1.. from the predictor's
    // tables, which have code_predictor_config.vocab_size rows each.
    if (t.code_predictor.vocab_size > t.vocab_size)
        pf.fail("vocab_size", std::to_string(t.code_predictor.vocab_size) +
                                  " exceeds talker_config.vocab_size " +
                                  std::to_string(t.vocab_size) +
                                  " (the talker's codec_embedding holds every code)");

    if (root.contains("speaker_encoder_config") && root["speaker_encoder_config"].is_object() &&
        !root["speaker_encoder_config"].empty()) {
        const JsonFields sf = top.object("speaker_encoder_config");
        SpeakerEncoderConfig& s = c.speaker_encoder;
        s.present = true;
        s.enc_dim = sf.get_int_or("enc_dim", 1024, 1, kMaxWidth);
        s.mel_dim = sf.get_int_or("mel_dim", 128, 1, 4096);
        s.sample_rate = sf.get_int_or("sample_rate", 24000, 1, 1000000);
        s.enc_channels =
            sf.get_int_list_or("enc_channels", {512, 512, 512, 512, 1536}, 1, kMaxWidth, 64);
        s.enc_kernel_sizes = sf.get_int_list_or("enc_kernel_sizes", {5, 3, 3, 3, 1}, 1, 1024, 64);
        s.enc_dilations = sf.get_int_list_or("enc_dilations", {1, 2, 3, 4, 1}, 1, 1024, 64);
        s.enc_attention_channels = sf.get_int_or("enc_attention_channels", 128, 1, kMaxWidth);
        s.enc_res2net_scale = sf.get_int_or("enc_res2net_scale", 8, 1, 1024);
        s.enc_se_channels = sf.get_int_or("enc_se_channels", 128, 1, kMaxWidth);
        // Base models feed the x-vector in as one codec row of the talker.
        if (c.type == ModelType::base && s.enc_dim != t.hidden_size)
            sf.fail("enc_dim", std::to_string(s.enc_dim) +
                                   " differs from "
                                   "talker_config.hidden_size " +
                                   std::to_string(t.hidden_size) +
                                   " (the x-vector is a talker input row)");
    }

    const std::string gen_path = dir + "/generation_config.json";
    const json gen_root = read_json_file(gen_path, "generation config", kMaxConfigBytes);
    const JsonFields g(gen_root, gen_path);
    GenerationDefaults& d = c.generation;
    d.do_sample = g.get_bool_or("do_sample", d.do_sample);
    d.temperature = float(g.get_number_or("temperature", d.temperature, 0.0, 1e6));
    d.top_k = g.get_int_or("top_k", d.top_k, 0, kIntMax);
    d.top_p = float(g.get_number_or("top_p", d.top_p, 0.0, 1.0));
    d.repetition_penalty =
        float(g.get_number_or("repetition_penalty", d.repetition_penalty, 0.0, 1e6));
    d.subtalker_do_sample = g.get_bool_or("subtalker_dosample", d.subtalker_do_sample);
    d.subtalker_temperature =
        float(g.get_number_or("subtalker_temperature", d.subtalker_temperature, 0.0, 1e6));
    d.subtalker_top_k = g.get_int_or("subtalker_top_k", d.subtalker_top_k, 0, kIntMax);
    d.subtalker_top_p = float(g.get_number_or("subtalker_top_p", d.subtalker_top_p, 0.0, 1.0));
    // At least one frame; at most what an int frame count + 1 holds.
    d.max_new_tokens = g.get_int_or("max_new_tokens", d.max_new_tokens, 2, kIntMax - 1);
    return c;
}

}  // namespace qwen3tts
