// Text → audio: the talker's frames go to the codec decoder as soon as they exist, so the
// first audio is out one frame's compute after the prompt, and memory stays constant however
// long the utterance (the codec stream carries bounded state).
#pragma once

#include <functional>

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
