// Qwen3-TTS 12 Hz codec decoder: 16 codes per frame (12.5 Hz) → 1920 samples at 24 kHz.
//
// Pipeline (spec/codec.md §3): split-RVQ dequant → pre_conv (causal k=3) → 8-layer
// sliding-window transformer → 2 × (transposed conv ×2 + ConvNeXt) → causal conv k=7 →
// 4 decoder blocks (SnakeBeta, transposed conv ×8/5/4/3, 3 dilated residual units) →
// SnakeBeta → causal conv k=7 → clamp to [-1, 1].
//
// Everything runs through one streaming engine (CodecStream): each causal conv carries its
// left context, each transposed conv its previous input, each attention layer its last
// window-1 keys/values, and positions keep counting. decode() is a fresh stream fed all frames,
// so streaming output equals the one-shot decode for any packetisation (up to float summation
// order). Internally a stream processes at most `max_chunk_frames` frames at a time, so its
// memory is fixed at creation whatever the stream length.
//
// Ownership and threads: CodecDecoder is immutable after load and may be shared by threads;
// a CodecStream is per request (one thread at a time) and keeps a pointer to its decoder and
// to the optional ThreadPool, which must outlive it.
// ref: qwen_tts/core/tokenizer_12hz/modeling_qwen3_tts_tokenizer_v2.py,
//      Qwen3TTSTokenizerV2Decoder.forward / .chunked_decode
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backend/ops.hpp"
#include "model/codec_config.hpp"
#include "model/codec_decoder_block.hpp"
#include "model/codec_quantizer.hpp"
#include "nn/codec_convnext.hpp"
#include "nn/codec_transformer_layer.hpp"
#include "nn/conv1d.hpp"
#include "nn/rope.hpp"
#include "nn/snake_beta.hpp"

namespace qwen3tts {

class CodecStream;

// Debug hook: called with a stable stage name ("quantizer", "pre_conv", "pre_transformer",
// "upsample0", "upsample1", "decoder0" .. "decoder4", "decoder6" = final conv before the
// clamp) and the stage's rows of the current internal chunk, channels-last [n_rows, n_ch].
using CodecTapFn =
    std::function<void(const char* name, const float* data, int64_t n_rows, int n_ch)>;

// How the decoder computes. Every choice gives the official waveform within the golden tests'
// bound (docs/codec.md has the errors and speeds).
struct CodecDecoderOptions {
    // The residual units' 7-tap convolutions (44 of the decoder's 62 GFLOP per second of audio)
    // by Winograd F(4, 7): 2.8x fewer multiply-adds there. false: direct sums (the default).
    bool winograd = false;
};

class CodecDecoder {
  public:
    // `dir` is a speech_tokenizer directory (config.json + model.safetensors) or a Qwen3-TTS
    // model directory containing speech_tokenizer/. Throws Error naming the missing file,
    // config field or tensor.
    static std::unique_ptr<CodecDecoder> load(const std::string& dir,
                                              const CodecDecoderOptions& options = {});

    const CodecDecoderConfig& config() const { return cfg_; }
    int n_codebook() const { return cfg_.n_codebook; }
    int samples_per_frame() const { return cfg_.decode_upsample_rate; }
    int sample_rate() const { return cfg_.output_sample_rate; }
    // Multiply-add count ×2 of the decode of n frames (convs, linears, attention).
    double flops(int64_t n_frames) const;

    // Throws Error(invalid_argument) naming frame and codebook of the first code outside
    // [0, codebook_size), or a negative frame count.
    void validate_codes(const int64_t* codes, int64_t n_frames) const;

    // One forward over all frames (positions 0..n-1): codes [n_frames, n_codebook] row-major
    // → samples_per_frame()·n_frames samples in [-1, 1]. Equals the official
    // `Qwen3TTSTokenizerV2Decoder.forward` (and chunked_decode for n <= 300).
    std::vector<float> decode(const int64_t* codes, int64_t n_frames,
                              const backend::ExecContext& ctx = {}) const;
    // Same, with the shape given explicitly ([n_frames, n_codebook]); a wrong shape or a
    // size mismatch is an Error.
    std::vector<float> decode(const std::vector<int64_t>& codes, const std::vector<int64_t>& shape,
                              const backend::ExecContext& ctx = {}) const;
    // The official chunked_decode: independent forwards over chunks of chunk_size frames, each
    // with left_context earlier frames whose audio is dropped (positions restart per chunk).
    // This is what `Qwen3TTSTokenizer.decode` returns (300/25); for n > 300 it differs from
    // decode() at chunk boundaries, by design of the reference.
    std::vector<float> decode_chunked(const int64_t* codes, int64_t n_frames, int chunk_size = 300,
                                      int left_context = 25,
                                      const backend::ExecContext& ctx = {}) const;

    // A streaming decoder with fresh (zero) state. max_chunk_frames bounds the frames per
    // internal step of the low-rate stages (transformer .. first decoder block, whose weights
    // are re-read once per step); calls with more frames are split internally. The high-rate
    // blocks run on sub-steps of conv_chunk_frames frames so their activations stay in cache.
    // Released model: scratch 21 MB at 32/4, 11 MB at 4/4, 3.5 MB at 1/1; state 5.2 MB.
    std::unique_ptr<CodecStream> new_stream(const backend::ExecContext& ctx = {},
                                            int max_chunk_frames = 32,
                                            int conv_chunk_frames = 4) const;

  private:
    friend class CodecStream;
    CodecDecoder() = default;

    CodecDecoderConfig cfg_;
    CodecTransformerShape tshape_;
    CodecQuantizerDecoder quantizer_;
    CausalConv1d pre_conv_;
    backend::ConvWeights input_proj_, output_proj_;
    std::vector<CodecTransformerLayer> layers_;
    std::vector<float> final_norm_;
    RopeFrequencies rope_;
    std::vector<CausalConvTranspose1d> upsample_;
    std::vector<CodecConvNeXtBlock> convnext_;
    CausalConv1d dec_in_;  // decoder.0
    std::vector<CodecDecoderBlock> blocks_;
    SnakeBeta final_snake_;
    CausalConv1d final_conv_;
};

class CodecStream {
  public:
    ~CodecStream();
    CodecStream(const CodecStream&) = delete;
    CodecStream& operator=(const CodecStream&) = delete;

    // Decodes the next n_frames frames (codes [n_frames, n_codebook] row-major) given all
    // earlier ones, writing samples_per_frame()·n_frames samples to `out`. No allocation.
    // Codes are validated first (Error names frame and codebook; the state is unchanged).
    void decode_frames(const int64_t* codes, int64_t n_frames, float* out);
    std::vector<float> decode_frames(const int64_t* codes, int64_t n_frames);
    // Several streams of one decoder (same execution context) decode their next frames
    // together: stream s takes n_frames[s] frames from codes[s] and writes out[s], exactly as
    // its own decode_frames() would (a stream's audio does not depend on the others in the
    // batch), but each layer runs once for all of them, reading its weights once. All codes are
    // validated first (an Error names stream, frame and codebook; no state changes).
    static void decode_batch(CodecStream* const* streams, const int64_t* const* codes,
                             const int64_t* n_frames, float* const* out, int n_streams);

    void reset();  // back to the start of a stream
    // The threads and kernels of later decodes (the audio does not depend on the threads).
    const backend::ExecContext& exec() const { return ctx_; }
    void set_exec(const backend::ExecContext& ctx) { ctx_ = ctx; }
    int64_t frames_done() const { return pos_; }
    // How many frames a caller feeding frames as they are generated should collect before its
    // next decode_frames(): 1 at the start (the first audio waits for one frame only, not for
    // a full packet), then as many as are done so far (1, 2, 4, ...: the buffered audio grows
    // with the packets) up to max_packet, which spreads the low-rate stages' weight reads
    // (~0.5 GB per step in f32) over more frames. max_packet <= 0 is Error(invalid_argument).
    int next_packet_frames(int max_packet) const;
    const CodecDecoder& decoder() const { return dec_; }
    int max_chunk_frames() const { return max_chunk_; }
    int conv_chunk_frames() const { return conv_chunk_; }
    size_t state_bytes() const;    // carried state (conv contexts + KV windows)
    size_t scratch_bytes() const;  // per-step buffers
    void set_tap(CodecTapFn tap) { tap_ = std::move(tap); }

  private:
    friend class CodecDecoder;
    CodecStream(const CodecDecoder& dec, const backend::ExecContext& ctx, int max_chunk_frames,
                int conv_chunk_frames);
    static void step_parts(CodecStream* const* streams, const int64_t* const* codes,
                           const int64_t* n, float* const* out, int count);
    void emit(const char* name, const float* data, int64_t n_rows, int n_ch) const {
        if (tap_) tap_(name, data, n_rows, n_ch);
    }

    const CodecDecoder& dec_;
    backend::ExecContext ctx_;
    int max_chunk_;
    int conv_chunk_;
    int64_t pos_ = 0;
    CodecTapFn tap_;
    std::string final_tap_name_;

    // Carried state.
    std::vector<float> pre_conv_state_;
    std::vector<SlidingKv> kv_;
    std::vector<std::vector<float>> up_state_, cnx_state_;
    std::vector<float> dec_in_state_;
    std::vector<CodecDecoderBlockState> block_state_;
    std::vector<float> final_state_;

    // Scratch (sized for max_chunk frames).
    std::vector<float> quant_scratch_, pre_in_, lat_, u_, tr_scratch_, rope_cos_, rope_sin_;
    std::vector<float> up_in_, cnx_in_, cnx_scratch_, dec_in_buf_, stage_, res_, res_hi_, tmp_;
};

}  // namespace qwen3tts
