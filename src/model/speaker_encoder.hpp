// The speaker encoder of the Base checkpoints: 24 kHz reference audio → x-vector [enc_dim]
// (= talker hidden size), placed in the codec track where a CustomVoice speaker token would go.
//
// Pipeline (spec/talker.md §7): log-mel [T, 128] (audio/mel_spectrogram) → ECAPA-TDNN without
// BatchNorm: TDNN(128→512, k5) → 3 SE-Res2Net blocks (dilation 2, 3, 4) → multi-layer feature
// aggregation TDNN(1536→1536) over cat(block outputs) → attentive statistics pooling →
// Conv1d(3072→enc_dim, k1). All convs reflect-pad "same".
//
// Numerics: weights are widened to f32 at load and everything runs in f32 (statistics in
// double).
// diverges: the official runs the network in the model dtype (BF16 in released setups, where
// even the uniform pooling weight 1/T is rounded to BF16); f32 reproduces its float32 runs.
//
// Ownership and threads: immutable after construction; embed() and log_mel() keep no state and
// may be called from several threads at once (with distinct pools, or none). The WeightMap may
// be closed after construction (weights are copied and packed).
// ref: qwen_tts/core/models/modeling_qwen3_tts.py, Qwen3TTSSpeakerEncoder.forward,
//      Qwen3TTSForConditionalGeneration.extract_speaker_embedding
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "audio/audio_reader.hpp"
#include "audio/mel_spectrogram.hpp"
#include "backend/ops.hpp"
#include "model/config.hpp"
#include "nn/tdnn.hpp"
#include "nn/tdnn_pooling.hpp"
#include "nn/tdnn_res2net.hpp"

namespace qwen3tts {

class WeightMap;

class SpeakerEncoder {
  public:
    // Loads every `speaker_encoder.*` tensor by its Hugging Face name with shape checks
    // (Error(model) naming the tensor), after checking that `config` describes a network the
    // official code could build (Error(model) naming the field otherwise).
    SpeakerEncoder(const WeightMap& weights, const SpeakerEncoderConfig& config);

    int enc_dim() const { return enc_dim_; }
    int sample_rate() const { return mel_.params().sample_rate; }  // 24000
    const MelSpectrogram& mel_frontend() const { return mel_; }
    // Shortest accepted input, in samples: the mel reflect pad (> 384 samples) and the encoder's
    // reflect "same" padding (its widest conv, pad 4 at dilation 4, needs T ≥ 5 frames), so
    // 1280 samples (53 ms) for the released configuration.
    size_t min_samples() const;

    // Log-mel of 24 kHz mono audio, row-major [frames, mel_dim], frames = ⌊n/256⌋ (the tensor
    // extract_speaker_embedding feeds the network). Error(invalid_argument) when the audio is
    // shorter than min_samples() or holds a non-finite sample.
    std::vector<float> log_mel(const std::vector<float>& audio_24k) const;

    // x-vector [enc_dim] of 24 kHz mono audio (the caller resamples other rates; see
    // audio/resample.hpp). Errors as log_mel(). `ctx` (its pool) parallelises the convs.
    std::vector<float> embed(const std::vector<float>& audio_24k,
                             const backend::ExecContext& ctx = {}) const;
    // Same, for decoded audio: Error(invalid_argument) unless audio.sample_rate is 24000.
    std::vector<float> embed(const Audio& audio, const backend::ExecContext& ctx = {}) const;
    // The network alone on a log-mel [n_frames, mel_dim] (n_frames ≥ min_frames()).
    std::vector<float> embed_mel(const float* mel, int64_t n_frames,
                                 const backend::ExecContext& ctx = {}) const;
    int64_t min_frames() const { return min_frames_; }
    // Multiply-adds ×2 of one embed_mel call over n_frames (for benchmarks).
    double flops(int64_t n_frames) const;

  private:
    MelSpectrogram mel_;
    int enc_dim_ = 0;
    int64_t min_frames_ = 1;
    ReflectConv1d block0_;                // blocks.0: TDNN(mel_dim → ch[0])
    std::vector<SeRes2NetBlock> blocks_;  // blocks.1 .. blocks.n-2
    ReflectConv1d mfa_;                   // TDNN(Σ block channels → ch[-1])
    AttentiveStatsPooling asp_;
    ReflectConv1d fc_;  // Conv1d(2·ch[-1] → enc_dim, k1), no activation
};

constexpr double kMinReferenceSeconds = 1.0;
constexpr float kSilencePeak = 1e-4f;

// Reference-audio policy of voice cloning (checked before resampling, the speaker encoder and
// the codec encoder run): Error(invalid_argument) when the audio is empty, has no valid sample
// rate, holds non-finite samples, is shorter than 1 s, longer than `max_seconds`, or silent
// (peak below 1e-4, about -80 dBFS). Messages start with `source` (the file name) and give the
// duration.
// The official code accepts any length (it only needs > 384 samples); these limits are ours:
// under a second carries too little voice to clone, and a long clip costs time and, in ICL
// mode, talker context.
void check_reference_audio(const Audio& audio, double max_seconds = 60.0,
                           const std::string& source = "reference audio");

}  // namespace qwen3tts
