// Configuration of the Qwen3-TTS 12 Hz codec decoder (`decoder_config` in
// speech_tokenizer/config.json). Values always come from the file: the Python class defaults
// are Qwen3-Omni's, not this checkpoint's (spec/codec.md §1.3).
// ref: qwen_tts/core/tokenizer_12hz/configuration_qwen3_tts_tokenizer_v2.py,
//      Qwen3TTSTokenizerV2DecoderConfig
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace qwen3tts {

struct CodecDecoderConfig {
    int codebook_size = 2048;      // entries per codebook
    int codebook_dim = 512;        // quantizer output dim; VQ dim = codebook_dim / 2
    int n_codebook = 16;           // num_quantizers (1 semantic + 15 acoustic)
    int latent_dim = 1024;         // pre_conv out, transformer in/out, upsample width
    int hidden_size = 512;         // transformer width
    int intermediate_size = 1024;  // SwiGLU width
    int n_layer = 8;               // num_hidden_layers
    int n_head = 16;               // num_attention_heads
    int n_head_kv = 16;            // num_key_value_heads
    int head_dim = 64;             // q/k/v width = n_head * head_dim (not hidden/n_head)
    float rms_norm_eps = 1e-5f;
    float rope_theta = 10000.0f;
    int sliding_window = 72;                      // keys per query, the current one included
    std::vector<int> upsampling_ratios{2, 2};     // transposed conv k = s, ConvNeXt after each
    std::vector<int> upsample_rates{8, 5, 4, 3};  // decoder blocks, transposed conv k = 2s
    int decoder_dim = 1536;                       // decoder[0] output channels; halves per block

    int output_sample_rate = 24000;
    int decode_upsample_rate = 1920;  // samples per frame

    int vq_dim() const { return codebook_dim / 2; }
    // prod(upsampling_ratios) * prod(upsample_rates), -1 past 2^20 or for a non-positive
    // entry; equals decode_upsample_rate.
    int total_upsample() const;
    // Channels after decoder block b (b = 0..n_block-1): decoder_dim / 2^(b+1).
    int block_out_dim(int b) const { return decoder_dim >> (b + 1); }

    // Checks ranges and consistency; throws Error(format) naming `source` and the field.
    void validate(const std::string& source) const;
};

// Reads `decoder_config` and the top-level rate fields from a speech_tokenizer/config.json.
// Every field the decoder needs must be present with the right type; errors name the file and
// the field (e.g. "decoder_config.head_dim: missing").
CodecDecoderConfig load_codec_decoder_config(const std::string& config_json_path);
CodecDecoderConfig parse_codec_decoder_config(const std::string& json_text,
                                              const std::string& source);

}  // namespace qwen3tts
