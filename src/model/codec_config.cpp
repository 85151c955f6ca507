#include "model/codec_config.hpp"

#include <cmath>

#include "core/error.hpp"
#include "core/json_fields.hpp"

namespace qwen3tts {

namespace {

using nlohmann::json;

// Sane upper bounds, far above the released codec (latent 1024, 8 layers, 16 x 2048 codes,
// 1920 samples per frame), low enough that products of them cannot overflow.
constexpr int kMaxWidth = 1 << 17;
constexpr int kMaxLayers = 1024;
constexpr int kMaxHeads = 1024;
constexpr int kMaxHeadDim = 4096;
constexpr int kMaxCodebooks = 64;
constexpr int kMaxCodebookSize = 1 << 20;
constexpr int kMaxWindow = 1 << 20;
constexpr size_t kMaxStages = 8;  // per upsampling list (decoder_dim halves per block)
constexpr int kMaxStride = 1024;
constexpr int64_t kMaxSamplesPerFrame = 1 << 20;
constexpr int kMaxSampleRate = 1000000;
constexpr uint64_t kMaxConfigBytes = uint64_t(16) << 20;

[[noreturn]] void bad_field(const std::string& source, const std::string& field,
                            const std::string& why) {
    throw Error(ErrorCode::format, source + ": " + field + ": " + why);
}

std::string list_str(const std::vector<int>& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
    return s + "]";
}

}  // namespace

int CodecDecoderConfig::total_upsample() const {
    std::vector<int> all(upsampling_ratios);
    all.insert(all.end(), upsample_rates.begin(), upsample_rates.end());
    return int(bounded_product(all, kMaxSamplesPerFrame));
}

void CodecDecoderConfig::validate(const std::string& source) const {
    auto in_range = [&](int64_t v, int64_t lo, int64_t hi, const char* name) {
        if (v < lo || v > hi)
            bad_field(source, std::string("decoder_config.") + name,
                      "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " +
                          std::to_string(v));
    };
    in_range(codebook_size, 1, kMaxCodebookSize, "codebook_size");
    in_range(codebook_dim, 2, kMaxWidth, "codebook_dim");
    in_range(n_codebook, 2, kMaxCodebooks, "num_quantizers");  // 1 semantic + acoustic
    in_range(latent_dim, 1, kMaxWidth, "latent_dim");
    in_range(hidden_size, 1, kMaxWidth, "hidden_size");
    in_range(intermediate_size, 1, kMaxWidth, "intermediate_size");
    in_range(n_layer, 1, kMaxLayers, "num_hidden_layers");
    in_range(n_head, 1, kMaxHeads, "num_attention_heads");
    in_range(n_head_kv, 1, kMaxHeads, "num_key_value_heads");
    in_range(head_dim, 2, kMaxHeadDim, "head_dim");
    in_range(sliding_window, 1, kMaxWindow, "sliding_window");
    in_range(decoder_dim, 1, kMaxWidth, "decoder_dim");
    if (!(rms_norm_eps > 0.0f) || !std::isfinite(rms_norm_eps))
        bad_field(source, "decoder_config.rms_norm_eps", "must be > 0");
    if (!(rope_theta > 0.0f) || !std::isfinite(rope_theta))
        bad_field(source, "decoder_config.rope_theta", "must be > 0");
    if (codebook_dim % 2 != 0)
        bad_field(source, "decoder_config.codebook_dim", "must be even (VQ dim = codebook_dim/2)");
    if (n_head % n_head_kv != 0)
        bad_field(source, "decoder_config.num_key_value_heads", "must divide num_attention_heads");
    if (head_dim % 2 != 0) bad_field(source, "decoder_config.head_dim", "must be even (RoPE)");
    auto check_list = [&](const std::vector<int>& v, const char* name) {
        if (v.empty() || v.size() > kMaxStages)
            bad_field(
                source, std::string("decoder_config.") + name,
                "must have 1 to " + std::to_string(kMaxStages) + " entries, got " + list_str(v));
        for (int r : v)
            if (r <= 0 || r > kMaxStride)
                bad_field(source, std::string("decoder_config.") + name,
                          "entries must be in [1, " + std::to_string(kMaxStride) + "], got " +
                              list_str(v));
    };
    check_list(upsampling_ratios, "upsampling_ratios");
    check_list(upsample_rates, "upsample_rates");
    if ((decoder_dim >> upsample_rates.size()) <= 0 ||
        (decoder_dim % (1 << upsample_rates.size())) != 0)
        bad_field(source, "decoder_config.decoder_dim",
                  std::to_string(decoder_dim) + " must be divisible by 2^len(upsample_rates) = " +
                      std::to_string(1 << upsample_rates.size()));
    in_range(output_sample_rate, 1, kMaxSampleRate, "output_sample_rate");
    const int total = total_upsample();
    if (total < 0)
        bad_field(source, "decode_upsample_rate",
                  "prod(upsampling_ratios + upsample_rates) exceeds " +
                      std::to_string(kMaxSamplesPerFrame) + " samples per frame");
    if (total != decode_upsample_rate)
        bad_field(source, "decode_upsample_rate",
                  std::to_string(decode_upsample_rate) + " != prod(upsampling_ratios + " +
                      "upsample_rates) = " + std::to_string(total));
}

CodecDecoderConfig parse_codec_decoder_config(const std::string& json_text,
                                              const std::string& source) {
    const json root = parse_json(json_text, source);
    const JsonFields top(root, source);
    const JsonFields dc = top.object("decoder_config");

    CodecDecoderConfig c;
    c.codebook_size = dc.get_int("codebook_size", 1, kMaxCodebookSize);
    c.codebook_dim = dc.get_int("codebook_dim", 2, kMaxWidth);
    c.n_codebook = dc.get_int("num_quantizers", 2, kMaxCodebooks);
    c.latent_dim = dc.get_int("latent_dim", 1, kMaxWidth);
    c.hidden_size = dc.get_int("hidden_size", 1, kMaxWidth);
    c.intermediate_size = dc.get_int("intermediate_size", 1, kMaxWidth);
    c.n_layer = dc.get_int("num_hidden_layers", 1, kMaxLayers);
    c.n_head = dc.get_int("num_attention_heads", 1, kMaxHeads);
    c.n_head_kv = dc.get_int("num_key_value_heads", 1, kMaxHeads);
    c.head_dim = dc.get_int("head_dim", 2, kMaxHeadDim);
    c.rms_norm_eps = float(dc.get_number("rms_norm_eps", 0.0, 1.0));
    c.rope_theta = float(dc.get_number("rope_theta", 0.0, 1e12));
    c.sliding_window = dc.get_int("sliding_window", 1, kMaxWindow);
    c.upsampling_ratios = dc.get_int_list("upsampling_ratios", 1, kMaxStride, kMaxStages);
    c.upsample_rates = dc.get_int_list("upsample_rates", 1, kMaxStride, kMaxStages);
    c.decoder_dim = dc.get_int("decoder_dim", 1, kMaxWidth);

    if (dc.get_string("hidden_act") != "silu")
        dc.fail("hidden_act", "only \"silu\" is supported, got " + dc.at("hidden_act").dump());
    if (dc.has("attention_bias") && dc.at("attention_bias").is_boolean() &&
        dc.get_bool("attention_bias"))
        dc.fail("attention_bias", "true is not supported (no bias tensors)");
    if (dc.has("rope_scaling")) dc.fail("rope_scaling", "only the default RoPE is supported");

    // Top-level rates are optional in older exports; default to the released values.
    c.output_sample_rate =
        top.get_int_or("output_sample_rate", c.output_sample_rate, 1, kMaxSampleRate);
    c.decode_upsample_rate = top.has("decode_upsample_rate")
                                 ? top.get_int("decode_upsample_rate", 1, kMaxSamplesPerFrame)
                                 : c.total_upsample();
    c.validate(source);
    return c;
}

CodecDecoderConfig load_codec_decoder_config(const std::string& config_json_path) {
    return parse_codec_decoder_config(
        read_text_file(config_json_path, "codec config", kMaxConfigBytes), config_json_path);
}

}  // namespace qwen3tts
