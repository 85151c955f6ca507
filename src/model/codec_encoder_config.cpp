#include "model/codec_encoder_config.hpp"

#include <cmath>

#include "core/error.hpp"
#include "core/json_fields.hpp"

namespace qwen3tts {

namespace {

using nlohmann::json;

const std::string kPrefix = "encoder_config.";

// Sane upper bounds, far above the released encoder (Mimi: 512 wide, 8 layers, 32 x 2048
// codes, strides 8·6·5·4), low enough that products of them cannot overflow.
constexpr int kMaxWidth = 1 << 17;
constexpr int kMaxLayers = 1024;
constexpr int kMaxHeads = 1024;
constexpr int kMaxHeadDim = 4096;
constexpr int kMaxKernel = 1024;
constexpr int kMaxQuantizers = 1024;
constexpr int kMaxCodebookSize = 1 << 20;
constexpr int kMaxWindow = 1 << 20;
constexpr int kMaxResidualLayers = 64;
constexpr int64_t kMaxDilation = 1 << 16;
constexpr size_t kMaxStages = 8;  // the channel count doubles per SEANet stage
constexpr int kMaxStride = 1024;
constexpr int64_t kMaxHop = 1 << 20;  // samples per SEANet frame
constexpr int kMaxSampleRate = 1000000;
constexpr uint64_t kMaxConfigBytes = uint64_t(16) << 20;

[[noreturn]] void bad_field(const std::string& source, const std::string& field,
                            const std::string& why, ErrorCode code = ErrorCode::format) {
    throw Error(code, source + ": " + field + ": " + why);
}

}  // namespace

std::vector<int> CodecEncoderConfig::encoder_strides() const {
    return std::vector<int>(upsampling_ratios.rbegin(), upsampling_ratios.rend());
}

int64_t CodecEncoderConfig::seanet_hop() const {
    return bounded_product(upsampling_ratios, kMaxHop);
}

int CodecEncoderConfig::encodec_frame_rate() const {
    const int64_t hop = seanet_hop();
    if (hop <= 0 || sample_rate <= 0) return -1;
    // MimiConfig: math.ceil(sampling_rate / np.prod(upsampling_ratios)).
    return int(std::ceil(double(sample_rate) / double(hop)));
}

int CodecEncoderConfig::downsample_kernel() const {
    const int rate = encodec_frame_rate();
    if (rate <= 0 || !(frame_rate > 0)) return -1;
    if (double(rate) == frame_rate) return 0;
    const double ratio = double(rate) / frame_rate;
    if (!(ratio < kMaxKernel)) return -1;  // also keeps the int conversion defined
    return 2 * int(ratio);                 // python int(): truncation
}

int64_t CodecEncoderConfig::samples_per_frame() const {
    const int64_t hop = seanet_hop();
    const int ds = downsample_kernel();
    if (hop <= 0 || ds < 0) return -1;
    return hop * (ds > 0 ? 2 : 1);  // the downsample stride is 2
}

void CodecEncoderConfig::validate(const std::string& source) const {
    auto in_range = [&](int64_t v, int64_t lo, int64_t hi, const char* name) {
        if (v < lo || v > hi)
            bad_field(source, kPrefix + name,
                      "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " +
                          std::to_string(v));
    };
    in_range(sample_rate, 1, kMaxSampleRate, "sampling_rate");
    in_range(n_filters, 1, kMaxWidth, "num_filters");
    in_range(kernel_size, 1, kMaxKernel, "kernel_size");
    in_range(last_kernel_size, 1, kMaxKernel, "last_kernel_size");
    in_range(residual_kernel_size, 1, kMaxKernel, "residual_kernel_size");
    in_range(n_residual_layers, 0, kMaxResidualLayers, "num_residual_layers");
    in_range(dilation_growth_rate, 1, kMaxKernel, "dilation_growth_rate");
    in_range(compress, 1, kMaxWidth, "compress");
    in_range(hidden_size, 1, kMaxWidth, "hidden_size");
    in_range(n_layer, 1, kMaxLayers, "num_hidden_layers");
    in_range(n_head, 1, kMaxHeads, "num_attention_heads");
    in_range(n_head_kv, 1, kMaxHeads, "num_key_value_heads");
    in_range(head_dim, 2, kMaxHeadDim, "head_dim");
    in_range(intermediate_size, 1, kMaxWidth, "intermediate_size");
    in_range(sliding_window, 1, kMaxWindow, "sliding_window");
    in_range(codebook_size, 1, kMaxCodebookSize, "codebook_size");
    in_range(codebook_dim, 1, kMaxWidth, "codebook_dim");
    in_range(vq_hidden_dim, 1, kMaxWidth, "vector_quantization_hidden_dimension");
    in_range(n_quantizers, 1, kMaxQuantizers, "num_quantizers");
    if (!(norm_eps > 0.0f) || !std::isfinite(norm_eps))
        bad_field(source, kPrefix + "norm_eps", "must be > 0");
    if (!(rope_theta > 0.0f) || !std::isfinite(rope_theta))
        bad_field(source, kPrefix + "rope_theta", "must be > 0");
    // The residual units of a stage use dilations 1, g, g², ... (SEANet).
    int64_t dilation = 1;
    for (int j = 1; j < n_residual_layers; ++j) {
        dilation *= dilation_growth_rate;
        if (dilation > kMaxDilation)
            bad_field(source, kPrefix + "dilation_growth_rate",
                      std::to_string(dilation_growth_rate) + "^" +
                          std::to_string(n_residual_layers - 1) + " (the last dilation) exceeds " +
                          std::to_string(kMaxDilation));
    }
    if (!(frame_rate > 0) || !std::isfinite(frame_rate))
        bad_field(source, kPrefix + "_frame_rate", "must be > 0");
    if (audio_channels != 1)
        bad_field(source, kPrefix + "audio_channels",
                  "only mono (1) is supported, got " + std::to_string(audio_channels),
                  ErrorCode::unsupported);
    if (upsampling_ratios.empty() || upsampling_ratios.size() > kMaxStages)
        bad_field(source, kPrefix + "upsampling_ratios",
                  "must have 1 to " + std::to_string(kMaxStages) + " entries");
    for (int r : upsampling_ratios)
        if (r <= 0 || r > kMaxStride)
            bad_field(source, kPrefix + "upsampling_ratios",
                      "entries must be in [1, " + std::to_string(kMaxStride) + "]");
    if (seanet_hop() < 0)
        bad_field(source, kPrefix + "upsampling_ratios",
                  "their product exceeds " + std::to_string(kMaxHop) + " samples per frame");
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
    const json root = parse_json(json_text, source);
    const JsonFields top(root, source);
    const JsonFields ec = top.object("encoder_config");

    // Field ranges here only keep values representable; validate() checks them properly.
    constexpr int kAny = 1 << 30;
    CodecEncoderConfig c;
    c.sample_rate = ec.get_int("sampling_rate", -kAny, kAny);
    // Saved as "_frame_rate" (the MimiConfig attribute); accept the constructor name too.
    if (ec.has("_frame_rate"))
        c.frame_rate = ec.get_number("_frame_rate", -1e9, 1e9);
    else if (ec.has("frame_rate"))
        c.frame_rate = ec.get_number("frame_rate", -1e9, 1e9);
    else
        ec.fail("_frame_rate", "missing");
    c.audio_channels = ec.get_int("audio_channels", -kAny, kAny);
    c.n_filters = ec.get_int("num_filters", -kAny, kAny);
    c.upsampling_ratios = ec.get_int_list("upsampling_ratios", 1, kMaxStride, kMaxStages);
    c.kernel_size = ec.get_int("kernel_size", -kAny, kAny);
    c.last_kernel_size = ec.get_int("last_kernel_size", -kAny, kAny);
    c.residual_kernel_size = ec.get_int("residual_kernel_size", -kAny, kAny);
    c.n_residual_layers = ec.get_int("num_residual_layers", -kAny, kAny);
    c.dilation_growth_rate = ec.get_int("dilation_growth_rate", -kAny, kAny);
    c.compress = ec.get_int("compress", -kAny, kAny);
    c.hidden_size = ec.get_int("hidden_size", -kAny, kAny);
    c.n_layer = ec.get_int("num_hidden_layers", -kAny, kAny);
    c.n_head = ec.get_int("num_attention_heads", -kAny, kAny);
    c.n_head_kv = ec.get_int("num_key_value_heads", -kAny, kAny);
    c.head_dim = ec.get_int("head_dim", -kAny, kAny);
    c.intermediate_size = ec.get_int("intermediate_size", -kAny, kAny);
    c.norm_eps = float(ec.get_number("norm_eps", 0.0, 1.0));
    c.rope_theta = float(ec.get_number("rope_theta", 0.0, 1e12));
    c.sliding_window = ec.get_int("sliding_window", -kAny, kAny);
    c.codebook_size = ec.get_int("codebook_size", -kAny, kAny);
    c.codebook_dim = ec.get_int("codebook_dim", -kAny, kAny);
    c.vq_hidden_dim = ec.get_int("vector_quantization_hidden_dimension", -kAny, kAny);
    c.n_quantizers = ec.get_int("num_quantizers", -kAny, kAny);
    c.n_semantic = ec.get_int("num_semantic_quantizers", -kAny, kAny);

    // Switches the encoder supports in one setting only.
    if (!ec.get_bool("use_causal_conv"))
        ec.fail("use_causal_conv", "only causal convolutions are supported",
                ErrorCode::unsupported);
    if (ec.get_bool("use_conv_shortcut"))
        ec.fail("use_conv_shortcut", "only the identity shortcut is supported",
                ErrorCode::unsupported);
    if (const std::string pad = ec.get_string("pad_mode"); pad != "constant")
        ec.fail("pad_mode", "only \"constant\" is supported, got \"" + pad + "\"",
                ErrorCode::unsupported);
    if (const std::string act = ec.get_string("hidden_act"); act != "gelu")
        ec.fail("hidden_act", "only \"gelu\" is supported, got \"" + act + "\"",
                ErrorCode::unsupported);
    if (ec.has("attention_bias") && ec.at("attention_bias").is_boolean() &&
        ec.get_bool("attention_bias"))
        ec.fail("attention_bias", "true is not supported (no bias tensors)",
                ErrorCode::unsupported);
    if (ec.has("rope_scaling"))
        ec.fail("rope_scaling", "only the default RoPE is supported", ErrorCode::unsupported);

    // Top-level fields; defaults are those of Qwen3TTSTokenizerV2Config.__init__.
    c.n_valid_quantizers = top.get_int_or("encoder_valid_num_quantizers", 16, -kAny, kAny);
    c.input_sample_rate = top.get_int_or("input_sample_rate", c.sample_rate, -kAny, kAny);
    c.encode_downsample_rate =
        top.get_int_or("encode_downsample_rate", int(c.samples_per_frame()), -kAny, kAny);
    c.validate(source);
    return c;
}

CodecEncoderConfig load_codec_encoder_config(const std::string& config_json_path) {
    return parse_codec_encoder_config(
        read_text_file(config_json_path, "codec config", kMaxConfigBytes), config_json_path);
}

}  // namespace qwen3tts
