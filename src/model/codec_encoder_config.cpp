#include "model/codec_encoder_config.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/text_file.hpp"

namespace qwen3tts {

namespace {

using nlohmann::json;

const std::string kPrefix = "encoder_config.";

[[noreturn]] void bad_field(const std::string& source, const std::string& field,
                            const std::string& why, ErrorCode code = ErrorCode::format) {
    throw Error(code, source + ": " + field + ": " + why);
}

const json& require(const json& obj, const char* key, const std::string& source,
                    const std::string& prefix) {
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) bad_field(source, prefix + key, "missing");
    return *it;
}

int as_int(const json& v, const std::string& source, const std::string& field) {
    if (v.is_number_integer()) return v.get<int>();
    if (v.is_number_float()) {  // some exports write 1.0 for 1
        const double d = v.get<double>();
        if (d == std::floor(d) && std::fabs(d) < 2e9) return int(d);
    }
    bad_field(source, field, "expected an integer, got " + v.dump());
}

int get_int(const json& obj, const char* key, const std::string& source,
            const std::string& prefix = kPrefix) {
    return as_int(require(obj, key, source, prefix), source, prefix + key);
}

double get_number(const json& obj, const char* key, const std::string& source) {
    const json& v = require(obj, key, source, kPrefix);
    if (!v.is_number()) bad_field(source, kPrefix + key, "expected a number, got " + v.dump());
    return v.get<double>();
}

bool get_bool(const json& obj, const char* key, const std::string& source) {
    const json& v = require(obj, key, source, kPrefix);
    if (!v.is_boolean()) bad_field(source, kPrefix + key, "expected true/false, got " + v.dump());
    return v.get<bool>();
}

std::string get_string(const json& obj, const char* key, const std::string& source) {
    const json& v = require(obj, key, source, kPrefix);
    if (!v.is_string()) bad_field(source, kPrefix + key, "expected a string, got " + v.dump());
    return v.get<std::string>();
}

std::vector<int> get_int_list(const json& obj, const char* key, const std::string& source) {
    const json& v = require(obj, key, source, kPrefix);
    if (!v.is_array() || v.empty())
        bad_field(source, kPrefix + key, "expected a non-empty list of integers, got " + v.dump());
    std::vector<int> out;
    for (const auto& e : v) out.push_back(as_int(e, source, kPrefix + key));
    return out;
}

int optional_top_int(const json& root, const char* key, int fallback, const std::string& source) {
    auto it = root.find(key);
    if (it == root.end() || it->is_null()) return fallback;
    return as_int(*it, source, key);
}

}  // namespace

std::vector<int> CodecEncoderConfig::encoder_strides() const {
    return std::vector<int>(upsampling_ratios.rbegin(), upsampling_ratios.rend());
}

int64_t CodecEncoderConfig::seanet_hop() const {
    int64_t p = 1;
    for (int r : upsampling_ratios) p *= r;
    return p;
}

int CodecEncoderConfig::encodec_frame_rate() const {
    // MimiConfig: math.ceil(sampling_rate / np.prod(upsampling_ratios)).
    return int(std::ceil(double(sample_rate) / double(seanet_hop())));
}

int CodecEncoderConfig::downsample_kernel() const {
    if (double(encodec_frame_rate()) == frame_rate) return 0;
    return 2 * int(double(encodec_frame_rate()) / frame_rate);  // python int(): truncation
}

int64_t CodecEncoderConfig::samples_per_frame() const {
    return seanet_hop() * (downsample_kernel() > 0 ? 2 : 1);  // the downsample stride is 2
}

void CodecEncoderConfig::validate(const std::string& source) const {
    auto positive = [&](int v, const char* name) {
        if (v <= 0) bad_field(source, kPrefix + name, "must be > 0, got " + std::to_string(v));
    };
    positive(sample_rate, "sampling_rate");
    positive(n_filters, "num_filters");
    positive(kernel_size, "kernel_size");
    positive(last_kernel_size, "last_kernel_size");
    positive(residual_kernel_size, "residual_kernel_size");
    positive(dilation_growth_rate, "dilation_growth_rate");
    positive(compress, "compress");
    positive(hidden_size, "hidden_size");
    positive(n_layer, "num_hidden_layers");
    positive(n_head, "num_attention_heads");
    positive(n_head_kv, "num_key_value_heads");
    positive(head_dim, "head_dim");
    positive(intermediate_size, "intermediate_size");
    positive(sliding_window, "sliding_window");
    positive(codebook_size, "codebook_size");
    positive(codebook_dim, "codebook_dim");
    positive(vq_hidden_dim, "vector_quantization_hidden_dimension");
    positive(n_quantizers, "num_quantizers");
    if (n_residual_layers < 0) bad_field(source, kPrefix + "num_residual_layers", "must be >= 0");
    if (!(frame_rate > 0)) bad_field(source, kPrefix + "_frame_rate", "must be > 0");
    if (audio_channels != 1)
        bad_field(source, kPrefix + "audio_channels",
                  "only mono (1) is supported, got " + std::to_string(audio_channels),
                  ErrorCode::unsupported);
    for (int r : upsampling_ratios)
        if (r <= 0) bad_field(source, kPrefix + "upsampling_ratios", "entries must be > 0");
    if (n_filters % compress != 0)
        bad_field(source, kPrefix + "compress", "must divide num_filters");
    if (n_head % n_head_kv != 0)
        bad_field(source, kPrefix + "num_key_value_heads", "must divide num_attention_heads");
    if (head_dim % 2 != 0) bad_field(source, kPrefix + "head_dim", "must be even (RoPE)");
    if (codebook_dim != vq_hidden_dim)
        bad_field(source, kPrefix + "codebook_dim",
                  "must equal vector_quantization_hidden_dimension (" +
                      std::to_string(vq_hidden_dim) + "), got " + std::to_string(codebook_dim));
    if (n_semantic < 0 || n_semantic > n_quantizers)
        bad_field(source, kPrefix + "num_semantic_quantizers",
                  "must be in [0, num_quantizers], got " + std::to_string(n_semantic));
    if (n_valid_quantizers <= 0 || n_valid_quantizers > n_quantizers)
        bad_field(source, "encoder_valid_num_quantizers",
                  "must be in [1, encoder_config.num_quantizers = " + std::to_string(n_quantizers) +
                      "], got " + std::to_string(n_valid_quantizers));
    if (n_valid_quantizers < n_semantic)
        bad_field(source, "encoder_valid_num_quantizers",
                  "must be >= num_semantic_quantizers (" + std::to_string(n_semantic) + ")");
    if (input_sample_rate != sample_rate)
        bad_field(source, "input_sample_rate",
                  std::to_string(input_sample_rate) + " != encoder_config.sampling_rate " +
                      std::to_string(sample_rate));
    const int ds = downsample_kernel();
    if (ds < 0 || (double(encodec_frame_rate()) != frame_rate && ds == 0))
        bad_field(source, kPrefix + "_frame_rate",
                  "unsupported ratio to the SEANet rate " + std::to_string(encodec_frame_rate()),
                  ErrorCode::unsupported);
    if (int64_t(encode_downsample_rate) != samples_per_frame())
        bad_field(source, "encode_downsample_rate",
                  std::to_string(encode_downsample_rate) +
                      " != samples per code frame of the encoder " +
                      std::to_string(samples_per_frame()));
}

CodecEncoderConfig parse_codec_encoder_config(const std::string& json_text,
                                              const std::string& source) {
    json root;
    try {
        root = json::parse(json_text);
    } catch (const std::exception& e) {
        throw Error(ErrorCode::format, source + ": invalid JSON: " + e.what());
    }
    if (!root.is_object()) throw Error(ErrorCode::format, source + ": expected a JSON object");
    const json& ec = require(root, "encoder_config", source, "");
    if (!ec.is_object()) bad_field(source, "encoder_config", "expected an object");

    CodecEncoderConfig c;
    c.sample_rate = get_int(ec, "sampling_rate", source);
    // Saved as "_frame_rate" (the MimiConfig attribute); accept the constructor name too.
    if (ec.contains("_frame_rate") && !ec["_frame_rate"].is_null())
        c.frame_rate = get_number(ec, "_frame_rate", source);
    else if (ec.contains("frame_rate") && !ec["frame_rate"].is_null())
        c.frame_rate = get_number(ec, "frame_rate", source);
    else
        bad_field(source, kPrefix + "_frame_rate", "missing");
    c.audio_channels = get_int(ec, "audio_channels", source);
    c.n_filters = get_int(ec, "num_filters", source);
    c.upsampling_ratios = get_int_list(ec, "upsampling_ratios", source);
    c.kernel_size = get_int(ec, "kernel_size", source);
    c.last_kernel_size = get_int(ec, "last_kernel_size", source);
    c.residual_kernel_size = get_int(ec, "residual_kernel_size", source);
    c.n_residual_layers = get_int(ec, "num_residual_layers", source);
    c.dilation_growth_rate = get_int(ec, "dilation_growth_rate", source);
    c.compress = get_int(ec, "compress", source);
    c.hidden_size = get_int(ec, "hidden_size", source);
    c.n_layer = get_int(ec, "num_hidden_layers", source);
    c.n_head = get_int(ec, "num_attention_heads", source);
    c.n_head_kv = get_int(ec, "num_key_value_heads", source);
    c.head_dim = get_int(ec, "head_dim", source);
    c.intermediate_size = get_int(ec, "intermediate_size", source);
    c.norm_eps = float(get_number(ec, "norm_eps", source));
    c.rope_theta = float(get_number(ec, "rope_theta", source));
    c.sliding_window = get_int(ec, "sliding_window", source);
    c.codebook_size = get_int(ec, "codebook_size", source);
    c.codebook_dim = get_int(ec, "codebook_dim", source);
    c.vq_hidden_dim = get_int(ec, "vector_quantization_hidden_dimension", source);
    c.n_quantizers = get_int(ec, "num_quantizers", source);
    c.n_semantic = get_int(ec, "num_semantic_quantizers", source);

    // Switches the encoder supports in one setting only.
    if (!get_bool(ec, "use_causal_conv", source))
        bad_field(source, kPrefix + "use_causal_conv", "only causal convolutions are supported",
                  ErrorCode::unsupported);
    if (get_bool(ec, "use_conv_shortcut", source))
        bad_field(source, kPrefix + "use_conv_shortcut", "only the identity shortcut is supported",
                  ErrorCode::unsupported);
    if (const std::string pad = get_string(ec, "pad_mode", source); pad != "constant")
        bad_field(source, kPrefix + "pad_mode",
                  "only \"constant\" is supported, got \"" + pad + "\"", ErrorCode::unsupported);
    if (const std::string act = get_string(ec, "hidden_act", source); act != "gelu")
        bad_field(source, kPrefix + "hidden_act", "only \"gelu\" is supported, got \"" + act + "\"",
                  ErrorCode::unsupported);
    if (auto it = ec.find("attention_bias"); it != ec.end() && it->is_boolean() && it->get<bool>())
        bad_field(source, kPrefix + "attention_bias", "true is not supported (no bias tensors)",
                  ErrorCode::unsupported);
    if (auto it = ec.find("rope_scaling"); it != ec.end() && !it->is_null())
        bad_field(source, kPrefix + "rope_scaling", "only the default RoPE is supported",
                  ErrorCode::unsupported);

    // Top-level fields; defaults are those of Qwen3TTSTokenizerV2Config.__init__.
    c.n_valid_quantizers = optional_top_int(root, "encoder_valid_num_quantizers", 16, source);
    c.input_sample_rate = optional_top_int(root, "input_sample_rate", c.sample_rate, source);
    c.encode_downsample_rate =
        optional_top_int(root, "encode_downsample_rate", int(c.samples_per_frame()), source);
    c.validate(source);
    return c;
}

CodecEncoderConfig load_codec_encoder_config(const std::string& config_json_path) {
    return parse_codec_encoder_config(read_text_file(config_json_path, "codec config"), config_json_path);
}

}  // namespace qwen3tts
