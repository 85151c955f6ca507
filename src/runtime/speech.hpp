// Text → audio: the talker's frames go to the codec decoder as soon as they exist, so the
// first audio is out one frame's compute after the prompt, and memory stays constant however
// long the utterance (the codec stream carries bounded state).
#pragma once

#include <chrono>
#include <exception>
#include <functional>
#include <memory>

#include "model/codec_decoder.hpp"
#include "runtime/codec_overlap.hpp"
#include "runtime/codec_worker.hpp"
#include "runtime/request_memory.hpp"
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
    // The first frame is decoded alone (time to first audio); later frames in packets of
    // kPacketFrames, which spreads the codec's per-step weight reads (its low-rate stages
    // re-read ~400 MB of weights per step) at a latency of a few frames.
    static constexpr int64_t kPacketFrames = 4;
    // Frames a batch may hold back (push_frame) before they must be decoded; also the codec
    // stream's largest step, which sizes its scratch (12 MB for the released codec).
    static constexpr int64_t kMaxPendingFrames = 2 * kPacketFrames;

    // Its codec stream comes from `memory` (give it back with release_memory).
    FrameAudio(const CodecDecoder& codec, RequestMemoryPool& memory, const VoiceClonePrompt* voice,
               AudioCallback on_audio);
    // Hands the codec stream to `memory` for the next request; this object is done.
    void release_memory(RequestMemoryPool& memory);

    // Takes one frame [16] and decodes the packet it completes; returns false once the callback
    // asked to stop.
    bool add_frame(const int32_t* codes);
    // Takes one frame [16] without decoding: a batch of requests decodes its due packets
    // together (flush_batch). At most kMaxPendingFrames frames are held.
    void push_frame(const int32_t* codes);
    // A packet is complete (the first frame alone, then kPacketFrames frames).
    bool packet_due() const;
    int64_t pending_frames() const { return n_pending_; }
    bool audio_started() const { return n_decoded_ > 0; }
    // Decodes the frames still held back and waits for a packet decoding beside the generation
    // (at the end of the request).
    bool flush();
    // Packets after the first audio decoded beside the generation as `mode` says (add_frame
    // only), `choice` deciding under CodecOverlap::adaptive; `single_threaded(true)` puts the
    // generation on its calling thread alone, (false) back on all its threads. The codec
    // stream is back on its own threads after flush().
    void set_overlap(CodecOverlap mode, OverlapChoice& choice,
                     std::function<void(bool)> single_threaded);
    // flush() for several requests of one codec and context at once, each codec layer run
    // once for all (CodecStream::decode_batch; each request's audio is what its own flush()
    // gives). The batch's codec time is shared among them by frames. Bad codes throw before
    // anything is decoded; a callback that throws is caught and its error put in errors[i].
    static void flush_batch(FrameAudio* const* audio, int n, std::exception_ptr* errors);
    bool keep_going() const { return keep_going_; }

    double codec_ms() const { return codec_ms_; }
    int64_t samples() const { return samples_; }
    // When the first audio was handed out (time_point{} before that).
    std::chrono::steady_clock::time_point first_audio() const { return first_audio_; }

  private:
    FrameAudio(const CodecDecoder& codec, std::unique_ptr<CodecStream> stream,
               const VoiceClonePrompt* voice, AudioCallback on_audio);
    // Hands `frames` decoded frames' audio to the callback.
    void deliver(const float* audio, int64_t frames, std::chrono::steady_clock::time_point decoded,
                 double codec_ms);
    // The pending frames as one packet, decoded here or handed to the worker.
    void decode_packet(bool beside);
    // Waits for the packet on the worker, if any, and delivers it.
    void finish_flight();
    // Decoding beside the generation (true) or between its frames (false) from now on.
    void switch_overlap(bool beside);

    std::unique_ptr<CodecStream> stream_;
    AudioCallback on_audio_;
    int64_t n_cb_, spf_, n_pending_ = 0, n_decoded_ = 0, samples_ = 0;
    std::vector<int64_t> pending_;
    std::vector<float> audio_;
    double codec_ms_ = 0;
    std::chrono::steady_clock::time_point first_audio_{};
    bool keep_going_ = true;

    // Overlap: the packet on the worker (its codes and audio), the stream's own threads.
    CodecOverlap overlap_ = CodecOverlap::off;
    OverlapChoice* choice_ = nullptr;
    std::function<void(bool)> single_threaded_;
    backend::ExecContext stream_exec_;
    bool beside_ = false;
    std::vector<int64_t> flight_codes_;
    std::vector<float> flight_audio_;
    int64_t flight_frames_ = 0;
    std::unique_ptr<CodecWorker> worker_;  // last: ends before the buffers and stream it uses
};

// One generation of a call: a prompt and its parameters.
struct SpeechSegment {
    Prompt prompt;
    GenerationParams params;
};
// Makes the call's next segment when asked (after the previous one has ended, so that one
// segment's prompt is in memory at a time); false when there are no more.
using SegmentSource = std::function<bool(SpeechSegment& next)>;

// Generates speech for the segments, one after the other, their frames in one codec stream
// (the audio of one segment runs on into the next; a segment's last frames are decoded when it
// ends). For in-context voice cloning the decoder is first primed with the reference codes
// (their audio is not emitted), as the official code decodes reference + generated frames
// together and cuts the reference part off. The stats add up the segments' (stopped_at_eos:
// the last one's). In streaming mode the packets after the first audio are decoded beside the
// generation as `overlap` says.
SpeechStats synthesize_speech(Session& session, const CodecDecoder& codec,
                              const SegmentSource& segments, const VoiceClonePrompt* voice,
                              CodecDecodeMode mode, const AudioCallback& on_audio,
                              CodecOverlap overlap = CodecOverlap::adaptive);
// The same for one prompt.
SpeechStats synthesize_speech(Session& session, const CodecDecoder& codec, const Prompt& prompt,
                              const GenerationParams& params, const VoiceClonePrompt* voice,
                              CodecDecodeMode mode, const AudioCallback& on_audio,
                              CodecOverlap overlap = CodecOverlap::adaptive);

// Codes [n_frames, 16] → audio.
std::vector<float> decode_codes(const CodecDecoder& codec, const backend::ExecContext& ctx,
                                const std::vector<int64_t>& codes, CodecDecodeMode mode);

}  // namespace qwen3tts
