// Configuration of the Qwen3-TTS 12 Hz codec encoder: `encoder_config` of
// speech_tokenizer/config.json (a transformers MimiConfig) plus the top-level encode fields.
// Values come from the file; the fields that shape the computation are required, so a
// truncated config is an error naming the field rather than a silent MimiConfig default.
// ref: transformers/models/mimi/configuration_mimi.py, MimiConfig;
//      qwen_tts/core/tokenizer_12hz/configuration_qwen3_tts_tokenizer_v2.py,
//      Qwen3TTSTokenizerV2Config (encoder_valid_num_quantizers, encode_downsample_rate)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace qwen3tts {

struct CodecEncoderConfig {
    int sample_rate = 24000;   // sampling_rate
    double frame_rate = 12.5;  // _frame_rate (codes per second)
    int audio_channels = 1;
    int n_filters = 64;                              // num_filters: first conv width
    std::vector<int> upsampling_ratios{8, 6, 5, 4};  // the encoder runs them reversed
    int kernel_size = 7;                             // first conv
    int last_kernel_size = 3;                        // last SEANet conv
    int residual_kernel_size = 3;
    int n_residual_layers = 1;  // num_residual_layers per stage
    int dilation_growth_rate = 2;
    int compress = 2;       // residual hidden = dim / compress
    int hidden_size = 512;  // SEANet output, transformer width
    int n_layer = 8;        // num_hidden_layers
    int n_head = 8;         // num_attention_heads
    int n_head_kv = 8;      // num_key_value_heads
    int head_dim = 64;
    int intermediate_size = 2048;
    float norm_eps = 1e-5f;  // LayerNorm eps
    float rope_theta = 10000.0f;
    int sliding_window = 250;  // configured; not applied by the official sdpa path
    int codebook_size = 2048;
    int codebook_dim = 256;   // codebook vector width
    int vq_hidden_dim = 256;  // vector_quantization_hidden_dimension (RVQ input width)
    int n_quantizers = 32;    // num_quantizers stored (semantic + acoustic)
    int n_semantic = 1;       // num_semantic_quantizers

    int n_valid_quantizers = 16;        // top-level encoder_valid_num_quantizers: codes kept
    int input_sample_rate = 24000;      // top-level input_sample_rate
    int encode_downsample_rate = 1920;  // top-level: samples per code frame

    // Strides of the SEANet encoder in execution order (upsampling_ratios reversed).
    std::vector<int> encoder_strides() const;
    // prod(upsampling_ratios): samples per SEANet frame (-1 past 2^20 or for an entry <= 0).
    int64_t seanet_hop() const;
    // ceil(sample_rate / seanet_hop): MimiConfig.encodec_frame_rate (-1 when undefined).
    int encodec_frame_rate() const;
    // Downsample conv kernel 2·int(encodec_frame_rate / frame_rate) (stride 2), or 0 when the
    // SEANet rate already equals frame_rate (no downsample layer).
    int downsample_kernel() const;
    // seanet_hop · (2 if downsampling else 1); -1 when either is undefined.
    int64_t samples_per_frame() const;

    // Checks ranges, consistency and the supported feature set; throws Error(format) or
    // Error(unsupported) naming `source` and the field.
    void validate(const std::string& source) const;
};

// Reads `encoder_config` and the top-level encode fields from a speech_tokenizer/config.json.
CodecEncoderConfig load_codec_encoder_config(const std::string& config_json_path);
CodecEncoderConfig parse_codec_encoder_config(const std::string& json_text,
                                              const std::string& source);

}  // namespace qwen3tts
