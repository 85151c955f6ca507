#include "runtime/speech.hpp"

#include <chrono>

#include "core/error.hpp"

namespace qwen3tts {

namespace {

double ms_between(std::chrono::steady_clock::time_point a,
                  std::chrono::steady_clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
}

}  // namespace

std::vector<float> decode_codes(const CodecDecoder& codec, const backend::ExecContext& ctx,
                                const std::vector<int64_t>& codes, CodecDecodeMode mode) {
    const int64_t n_cb = codec.n_codebook();
    if (codes.size() % size_t(n_cb) != 0)
        throw Error(ErrorCode::invalid_argument, "codes are not a whole number of frames");
    const int64_t n = int64_t(codes.size()) / n_cb;
    if (mode == CodecDecodeMode::official_chunked)
        return codec.decode_chunked(codes.data(), n, 300, 25, ctx);
    return codec.decode(codes.data(), n, ctx);
}

// ref: qwen3_tts_model.py, Qwen3TTSModel.generate_* (generate, then speech_tokenizer.decode)
SpeechStats synthesize_speech(Session& session, const CodecDecoder& codec, const Prompt& prompt,
                              const GenerationParams& params, const VoiceClonePrompt* voice,
                              CodecDecodeMode mode, const AudioCallback& on_audio) {
    using clock = std::chrono::steady_clock;
    const auto t_start = clock::now();
    SpeechStats st;
    const int64_t n_cb = codec.n_codebook();
    const bool icl = voice && voice->in_context();

    if (mode == CodecDecodeMode::official_chunked) {
        // Generate everything, then decode (reference frames first for in-context cloning)
        // and cut as the official pipeline does.
        const auto frames = session.generate(prompt, params, {}, &st.generation);
        std::vector<int64_t> all;
        if (icl) all.assign(voice->ref_codes.begin(), voice->ref_codes.end());
        all.insert(all.end(), frames.begin(), frames.end());
        const auto t0 = clock::now();
        std::vector<float> wav = decode_codes(codec, session.exec(), all, mode);
        size_t cut = 0;
        if (icl && !all.empty()) {
            const int64_t ref_len = int64_t(voice->ref_codes.size()) / n_cb;
            const int64_t total = int64_t(all.size()) / n_cb;
            // Literal formula of the official code (float proportion; sometimes one sample short).
            cut = size_t(double(ref_len) / double(total) * double(wav.size()));
        }
        st.codec_ms = ms_between(t0, clock::now());
        st.samples = int64_t(wav.size() - cut);
        st.first_audio_ms = ms_between(t_start, clock::now());
        if (on_audio && st.samples > 0) on_audio(wav.data() + cut, wav.size() - cut);
        st.total_ms = ms_between(t_start, clock::now());
        return st;
    }

    FrameAudio audio(codec, session.exec(), voice, on_audio);
    GenerationHooks hooks;
    hooks.on_frame = [&](int64_t, const int32_t* codes) { return audio.add_frame(codes); };
    session.generate(prompt, params, hooks, &st.generation);
    audio.flush();
    st.codec_ms = audio.codec_ms();
    st.samples = audio.samples();
    if (audio.samples() > 0) st.first_audio_ms = ms_between(t_start, audio.first_audio());
    st.total_ms = ms_between(t_start, clock::now());
    return st;
}

// The first frame is decoded alone (time to first audio); later frames in packets of
// kPacketFrames, which spreads the codec's per-step weight reads (its low-rate stages re-read
// ~400 MB of weights per step) at a latency of a few frames.
constexpr int64_t kPacketFrames = 4;

FrameAudio::FrameAudio(const CodecDecoder& codec, const backend::ExecContext& ctx,
                       const VoiceClonePrompt* voice, AudioCallback on_audio)
    : stream_(codec.new_stream(ctx)),
      on_audio_(std::move(on_audio)),
      n_cb_(codec.n_codebook()),
      spf_(codec.samples_per_frame()),
      pending_(size_t(kPacketFrames * n_cb_)),
      audio_(size_t(kPacketFrames * spf_)) {
    if (voice && voice->in_context()) {
        // Prime the decoder's carried state with the reference frames; their audio is dropped.
        std::vector<float> discard(size_t(spf_) * 8);
        const int64_t ref_frames = int64_t(voice->ref_codes.size()) / n_cb_;
        for (int64_t f = 0; f < ref_frames; f += 8) {
            const int64_t n = std::min<int64_t>(8, ref_frames - f);
            stream_->decode_frames(voice->ref_codes.data() + f * n_cb_, n, discard.data());
        }
    }
}

bool FrameAudio::add_frame(const int32_t* codes) {
    for (int64_t g = 0; g < n_cb_; ++g) pending_[size_t(n_pending_ * n_cb_ + g)] = codes[g];
    ++n_pending_;
    if (n_decoded_ == 0 || n_pending_ == kPacketFrames) return flush();
    return keep_going_;
}

bool FrameAudio::flush() {
    if (n_pending_ == 0) return keep_going_;
    using clock = std::chrono::steady_clock;
    const auto t0 = clock::now();
    stream_->decode_frames(pending_.data(), n_pending_, audio_.data());
    const auto t1 = clock::now();
    codec_ms_ += ms_between(t0, t1);
    if (n_decoded_ == 0) first_audio_ = t1;
    const size_t n = size_t(n_pending_ * spf_);
    samples_ += int64_t(n);
    n_decoded_ += n_pending_;
    n_pending_ = 0;
    if (on_audio_ && keep_going_) keep_going_ = on_audio_(audio_.data(), n);
    return keep_going_;
}

}  // namespace qwen3tts
