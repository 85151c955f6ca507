// Qwen3-TTS 12 Hz codec encoder: 24 kHz mono waveform → codes [ceil(L / 1920), 16], the
// reference-audio tokens of voice cloning (ICL prompts) and `qwen3tts encode`.
//
// Pipeline (spec/codec.md §5): SEANet conv stack (25 Hz, 512 ch) → 8-layer causal transformer
// (LayerNorm, GELU, RoPE, layer scale, full causal attention) → causal stride-2 conv with
// replicate padding (12.5 Hz) → split RVQ (1 semantic + 15 acoustic levels kept of 1 + 31).
// Equals the official `Qwen3TTSTokenizer.encode(wav, sr=24000)` for one clip: the
// EncodecFeatureExtractor adds nothing for a single unpadded input and the trim to
// ceil(len / 1920) frames is a no-op, so one forward over the whole clip is the reference.
//
// Ownership and threads: immutable after load; encode() may run concurrently from several
// threads (it allocates its scratch per call). The optional ThreadPool must not be used by
// another call at the same time.
// ref: qwen_tts/core/tokenizer_12hz/modeling_qwen3_tts_tokenizer_v2.py,
//      Qwen3TTSTokenizerV2Model.encode; transformers/models/mimi/modeling_mimi.py,
//      MimiModel.encode / _encode_frame
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backend/ops.hpp"
#include "model/codec_encoder_config.hpp"
#include "nn/mimi_conv.hpp"
#include "nn/mimi_rvq.hpp"
#include "nn/mimi_seanet.hpp"
#include "nn/mimi_transformer_layer.hpp"

namespace qwen3tts {

// Debug hook: a stable stage name ("seanet" [T25, hidden], "transformer" [T25, hidden],
// "downsample" [T12, hidden]) and its rows, channels-last.
using CodecEncoderTapFn =
    std::function<void(const char* name, const float* data, int64_t n_rows, int n_ch)>;

struct CodecEncoderOptions {
    // Keys per query in the encoder transformer; 0 = full causal, the official behaviour
    // (transformers' sdpa/eager paths ignore sliding_window). config().sliding_window gives
    // the flash-attention-2 variant.
    int attention_window = 0;
    // Waveform samples per SEANet chunk (rounded up to a multiple of 960); bounds memory
    // (~1 KB of scratch per chunk sample). 0.4 s measured fastest: the buffers stay cache-sized and
    // are cheap to fault in, while the 25 Hz stage still gets 10-row GEMMs.
    int64_t chunk_samples = 9600;
};

class CodecEncoder {
  public:
    // `dir` is a speech_tokenizer directory (config.json + model.safetensors) or a Qwen3-TTS
    // model directory containing speech_tokenizer/. Reads encoder_config and the `encoder.*`
    // tensors, shape-checked; throws Error naming the missing file, field or tensor.
    static std::unique_ptr<CodecEncoder> load(const std::string& dir,
                                              const CodecEncoderOptions& options = {});

    const CodecEncoderConfig& config() const { return cfg_; }
    int n_codebook() const { return cfg_.n_valid_quantizers; }              // 16
    int sample_rate() const { return cfg_.sample_rate; }                    // 24000
    int64_t samples_per_frame() const { return cfg_.samples_per_frame(); }  // 1920
    int64_t n_frames(int64_t n_samples) const;                              // ceil(n / 1920)
    double flops(int64_t n_samples) const;  // multiply-adds ×2 of one encode

    // audio: mono samples at sample_rate() (resample first). Returns codes [n_frames, 16]
    // row-major (column 0 = semantic). Throws Error(invalid_argument) for empty audio or a
    // non-finite sample (naming its index).
    std::vector<int64_t> encode(const std::vector<float>& audio,
                                const backend::ExecContext& ctx = {}) const;
    std::vector<int64_t> encode(const float* audio, int64_t n, const backend::ExecContext& ctx = {},
                                const CodecEncoderTapFn& tap = {}) const;

  private:
    CodecEncoder() = default;

    CodecEncoderConfig cfg_;
    CodecEncoderOptions opt_;
    MimiSeanetEncoder seanet_;
    MimiTransformerShape tshape_;
    std::vector<MimiTransformerLayer> layers_;
    bool has_downsample_ = false;
    MimiStridedConv1d downsample_;
    MimiSplitRvqEncoder rvq_;
};

}  // namespace qwen3tts
