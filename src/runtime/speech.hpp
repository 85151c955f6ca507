// Text → audio: the talker's frames go to the codec decoder as soon as they exist, so the
// first audio is out one frame's compute after the prompt, and memory stays constant however
// long the utterance (the codec stream carries bounded state).
#pragma once

#include <chrono>
#include <functional>
#include <memory>

#include "model/codec_decoder.hpp"
#include "runtime/session.hpp"

namespace qwen3tts {

enum class CodecDecodeMode {
    // Exact incremental decode with carried state: equals one full forward over all frames.
    streaming,
    // The official pipeline's chunked_decode(300 frames, 25 frames of left context): equal to
    // streaming up to 300 frames, different at chunk seams beyond; decodes after generation.
    official_chunked,
};

struct SpeechStats {
    GenerationStats generation;
    double codec_ms = 0;
    double first_audio_ms = -1;  // from the start of the call, prompt building excluded
    double total_ms = 0;
    int64_t samples = 0;
};

// Receives each piece of audio (24 kHz mono, [-1, 1]); return false to stop.
using AudioCallback = std::function<bool(const float* samples, size_t n)>;

// Frames → audio for one request, as the frames come: an exact incremental codec stream
// (primed first with an in-context voice's reference frames, whose audio is dropped), the
// first frame decoded alone (time to first audio) and later ones in packets.
class FrameAudio {
  public:
    FrameAudio(const CodecDecoder& codec, const backend::ExecContext& ctx,
               const VoiceClonePrompt* voice, AudioCallback on_audio);

    // Takes one frame [16]; returns false once the callback asked to stop.
    bool add_frame(const int32_t* codes);
    // Decodes the frames still held back (at the end of the request).
    bool flush();

    double codec_ms() const { return codec_ms_; }
    int64_t samples() const { return samples_; }
    // When the first audio was handed out (time_point{} before that).
    std::chrono::steady_clock::time_point first_audio() const { return first_audio_; }

  private:
    std::unique_ptr<CodecStream> stream_;
    AudioCallback on_audio_;
    int64_t n_cb_, spf_, n_pending_ = 0, n_decoded_ = 0, samples_ = 0;
    std::vector<int64_t> pending_;
    std::vector<float> audio_;
    double codec_ms_ = 0;
    std::chrono::steady_clock::time_point first_audio_{};
    bool keep_going_ = true;
};

// Generates speech for a prompt. For in-context voice cloning the decoder is first primed
// with the reference codes (their audio is not emitted), as the official code decodes
// reference + generated frames together and cuts the reference part off.
SpeechStats synthesize_speech(Session& session, const CodecDecoder& codec, const Prompt& prompt,
                              const GenerationParams& params, const VoiceClonePrompt* voice,
                              CodecDecodeMode mode, const AudioCallback& on_audio);

// Codes [n_frames, 16] → audio.
std::vector<float> decode_codes(const CodecDecoder& codec, const backend::ExecContext& ctx,
                                const std::vector<int64_t>& codes, CodecDecodeMode mode);

}  // namespace qwen3tts
