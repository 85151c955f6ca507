#include "model/codec_config.hpp"


#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/text_file.hpp"

namespace qwen3tts {

namespace {

using nlohmann::json;

[[noreturn]] void bad_field(const std::string& source, const std::string& field,
                            const std::string& why) {
    throw Error(ErrorCode::format, source + ": " + field + ": " + why);
}

const json& require(const json& obj, const char* key, const std::string& source,
                    const std::string& prefix) {
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) bad_field(source, prefix + key, "missing");
    return *it;
}

int get_int(const json& obj, const char* key, const std::string& source, const std::string& prefix) {
    const json& v = require(obj, key, source, prefix);
    if (v.is_number_integer()) return v.get<int>();
    // Some exports write integral values as 10000.0.
    if (v.is_number_float()) {
        double d = v.get<double>();
        if (d == double(int64_t(d))) return int(d);
    }
    bad_field(source, prefix + key, "expected an integer, got " + v.dump());
}

float get_float(const json& obj, const char* key, const std::string& source,
                const std::string& prefix) {
    const json& v = require(obj, key, source, prefix);
    if (!v.is_number()) bad_field(source, prefix + key, "expected a number, got " + v.dump());
    return v.get<float>();
}

std::vector<int> get_int_list(const json& obj, const char* key, const std::string& source,
                              const std::string& prefix) {
    const json& v = require(obj, key, source, prefix);
    if (!v.is_array() || v.empty())
        bad_field(source, prefix + key, "expected a non-empty list of integers, got " + v.dump());
    std::vector<int> out;
    for (const auto& e : v) {
        if (!e.is_number_integer())
            bad_field(source, prefix + key, "expected a list of integers, got " + v.dump());
        out.push_back(e.get<int>());
    }
    return out;
}

}  // namespace

int CodecDecoderConfig::total_upsample() const {
    int p = 1;
    for (int r : upsampling_ratios) p *= r;
    for (int r : upsample_rates) p *= r;
    return p;
}

void CodecDecoderConfig::validate(const std::string& source) const {
    auto positive = [&](int v, const char* name) {
        if (v <= 0) bad_field(source, std::string("decoder_config.") + name,
                              "must be > 0, got " + std::to_string(v));
    };
    positive(codebook_size, "codebook_size");
    positive(codebook_dim, "codebook_dim");
    positive(latent_dim, "latent_dim");
    positive(hidden_size, "hidden_size");
    positive(intermediate_size, "intermediate_size");
    positive(n_layer, "num_hidden_layers");
    positive(n_head, "num_attention_heads");
    positive(n_head_kv, "num_key_value_heads");
    positive(head_dim, "head_dim");
    positive(sliding_window, "sliding_window");
    positive(decoder_dim, "decoder_dim");
    if (codebook_dim % 2 != 0)
        bad_field(source, "decoder_config.codebook_dim", "must be even (VQ dim = codebook_dim/2)");
    if (n_codebook < 2)
        bad_field(source, "decoder_config.num_quantizers",
                  "must be >= 2 (1 semantic + acoustic), got " + std::to_string(n_codebook));
    if (n_head % n_head_kv != 0)
        bad_field(source, "decoder_config.num_key_value_heads",
                  "must divide num_attention_heads");
    if (head_dim % 2 != 0) bad_field(source, "decoder_config.head_dim", "must be even (RoPE)");
    for (int r : upsampling_ratios)
        if (r <= 0) bad_field(source, "decoder_config.upsampling_ratios", "entries must be > 0");
    for (int r : upsample_rates)
        if (r <= 0) bad_field(source, "decoder_config.upsample_rates", "entries must be > 0");
    if ((decoder_dim >> upsample_rates.size()) <= 0 ||
        (decoder_dim % (1 << upsample_rates.size())) != 0)
        bad_field(source, "decoder_config.decoder_dim",
                  "must be divisible by 2^len(upsample_rates)");
    if (total_upsample() != decode_upsample_rate)
        bad_field(source, "decode_upsample_rate",
                  std::to_string(decode_upsample_rate) + " != prod(upsampling_ratios + " +
                      "upsample_rates) = " + std::to_string(total_upsample()));
}

CodecDecoderConfig parse_codec_decoder_config(const std::string& json_text,
                                              const std::string& source) {
    json root;
    try {
        root = json::parse(json_text);
    } catch (const std::exception& e) {
        throw Error(ErrorCode::format, source + ": invalid JSON: " + e.what());
    }
    if (!root.is_object()) throw Error(ErrorCode::format, source + ": expected a JSON object");
    const json& dc = require(root, "decoder_config", source, "");
    if (!dc.is_object()) bad_field(source, "decoder_config", "expected an object");

    const std::string p = "decoder_config.";
    CodecDecoderConfig c;
    c.codebook_size = get_int(dc, "codebook_size", source, p);
    c.codebook_dim = get_int(dc, "codebook_dim", source, p);
    c.n_codebook = get_int(dc, "num_quantizers", source, p);
    c.latent_dim = get_int(dc, "latent_dim", source, p);
    c.hidden_size = get_int(dc, "hidden_size", source, p);
    c.intermediate_size = get_int(dc, "intermediate_size", source, p);
    c.n_layer = get_int(dc, "num_hidden_layers", source, p);
    c.n_head = get_int(dc, "num_attention_heads", source, p);
    c.n_head_kv = get_int(dc, "num_key_value_heads", source, p);
    c.head_dim = get_int(dc, "head_dim", source, p);
    c.rms_norm_eps = get_float(dc, "rms_norm_eps", source, p);
    c.rope_theta = get_float(dc, "rope_theta", source, p);
    c.sliding_window = get_int(dc, "sliding_window", source, p);
    c.upsampling_ratios = get_int_list(dc, "upsampling_ratios", source, p);
    c.upsample_rates = get_int_list(dc, "upsample_rates", source, p);
    c.decoder_dim = get_int(dc, "decoder_dim", source, p);

    const json& act = require(dc, "hidden_act", source, p);
    if (!act.is_string() || act.get<std::string>() != "silu")
        bad_field(source, p + "hidden_act", "only \"silu\" is supported, got " + act.dump());
    if (auto it = dc.find("attention_bias"); it != dc.end() && it->is_boolean() && it->get<bool>())
        bad_field(source, p + "attention_bias", "true is not supported (no bias tensors)");
    if (auto it = dc.find("rope_scaling"); it != dc.end() && !it->is_null())
        bad_field(source, p + "rope_scaling", "only the default RoPE is supported");

    // Top-level rates are optional in older exports; default to the released values.
    if (root.contains("output_sample_rate"))
        c.output_sample_rate = get_int(root, "output_sample_rate", source, "");
    c.decode_upsample_rate = root.contains("decode_upsample_rate")
                                 ? get_int(root, "decode_upsample_rate", source, "")
                                 : c.total_upsample();
    c.validate(source);
    return c;
}

CodecDecoderConfig load_codec_decoder_config(const std::string& config_json_path) {
    return parse_codec_decoder_config(read_text_file(config_json_path, "codec config"), config_json_path);
}

}  // namespace qwen3tts
