#include "runtime/speech.hpp"

#include <algorithm>
#include <chrono>
#include <utility>
#include <vector>

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
SpeechStats synthesize_speech(Session& session, const CodecDecoder& codec,
                              const SegmentSource& segments, const VoiceClonePrompt* voice,
                              CodecDecodeMode mode, const AudioCallback& on_audio,
                              CodecOverlap overlap) {
    using clock = std::chrono::steady_clock;
    const auto t_start = clock::now();
    SpeechStats st;
    const int64_t n_cb = codec.n_codebook();
    const bool icl = voice && voice->in_context();
    SpeechSegment segment;

    if (mode == CodecDecodeMode::official_chunked) {
        // Generate everything, then decode (reference frames first for in-context cloning)
        // and cut as the official pipeline does.
        std::vector<int64_t> all;
        if (icl) all.assign(voice->ref_codes.begin(), voice->ref_codes.end());
        while (segments(segment)) {
            GenerationStats g;
            const auto frames = session.generate(segment.prompt, segment.params, {}, &g);
            st.generation += g;
            all.insert(all.end(), frames.begin(), frames.end());
        }
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

    FrameAudio audio(codec, session.memory(), voice, on_audio);
    // The session goes back to all its threads however this ends.
    struct AllThreads {
        Session& session;
        ~AllThreads() { session.set_single_threaded(false); }
    } all_threads{session};
    audio.set_overlap(overlap, session.overlap_choice(),
                      [&](bool one) { session.set_single_threaded(one); });
    GenerationHooks hooks;
    hooks.on_frame = [&](int64_t, const int32_t* codes) { return audio.add_frame(codes); };
    while (audio.keep_going() && segments(segment)) {
        GenerationStats g;
        session.generate(segment.prompt, segment.params, hooks, &g);
        st.generation += g;
        // The segment's last frames decoded, and the next segment's prefill (bound by
        // arithmetic) on all threads, whichever way its packets were decoded.
        audio.flush();
    }
    st.codec_ms = audio.codec_ms();
    st.samples = audio.samples();
    if (audio.samples() > 0) st.first_audio_ms = ms_between(t_start, audio.first_audio());
    st.total_ms = ms_between(t_start, clock::now());
    audio.release_memory(session.memory());
    return st;
}

SpeechStats synthesize_speech(Session& session, const CodecDecoder& codec, const Prompt& prompt,
                              const GenerationParams& params, const VoiceClonePrompt* voice,
                              CodecDecodeMode mode, const AudioCallback& on_audio,
                              CodecOverlap overlap) {
    bool given = false;
    const SegmentSource one = [&](SpeechSegment& next) {
        if (given) return false;
        next = SpeechSegment{prompt, params};
        return given = true;
    };
    return synthesize_speech(session, codec, one, voice, mode, on_audio, overlap);
}

FrameAudio::FrameAudio(const CodecDecoder& codec, RequestMemoryPool& memory,
                       const VoiceClonePrompt* voice, AudioCallback on_audio)
    : FrameAudio(codec, memory.take_codec_stream(codec, int(kMaxPendingFrames)), voice,
                 std::move(on_audio)) {}

void FrameAudio::release_memory(RequestMemoryPool& memory) {
    worker_.reset();
    stream_->set_exec(stream_exec_);
    memory.keep_codec_stream(std::move(stream_));
}

void FrameAudio::set_overlap(CodecOverlap mode, OverlapChoice& choice,
                             std::function<void(bool)> single_threaded) {
    overlap_ = mode;
    choice_ = &choice;
    choice.new_request();
    single_threaded_ = std::move(single_threaded);
}

FrameAudio::FrameAudio(const CodecDecoder& codec, std::unique_ptr<CodecStream> stream,
                       const VoiceClonePrompt* voice, AudioCallback on_audio)
    : stream_(std::move(stream)),
      on_audio_(std::move(on_audio)),
      n_cb_(codec.n_codebook()),
      spf_(codec.samples_per_frame()),
      pending_(size_t(kMaxPendingFrames * n_cb_)),
      audio_(size_t(kMaxPendingFrames * spf_)),
      stream_exec_(stream_->exec()) {
    if (voice && voice->in_context()) {
        // Prime the decoder's carried state with the reference frames; their audio is dropped.
        const int64_t ref_frames = int64_t(voice->ref_codes.size()) / n_cb_;
        for (int64_t f = 0; f < ref_frames; f += kMaxPendingFrames) {
            const int64_t n = std::min<int64_t>(kMaxPendingFrames, ref_frames - f);
            stream_->decode_frames(voice->ref_codes.data() + f * n_cb_, n, audio_.data());
        }
    }
}

bool FrameAudio::add_frame(const int32_t* codes) {
    push_frame(codes);
    if (!packet_due()) return keep_going_;
    if (n_decoded_ == 0) return flush();  // the first audio: here, at once
    decode_packet(overlap_ == CodecOverlap::adaptive
                      ? choice_->at_boundary(std::chrono::steady_clock::now(), n_pending_)
                      : overlap_ == CodecOverlap::on);
    return keep_going_;
}

void FrameAudio::decode_packet(bool beside) {
    if (beside != beside_) switch_overlap(beside);
    if (!beside_) {
        flush();
        return;
    }
    finish_flight();
    if (!keep_going_) {
        n_pending_ = 0;
        return;
    }
    std::swap(pending_, flight_codes_);
    flight_frames_ = std::exchange(n_pending_, 0);
    worker_->start(*stream_, flight_codes_.data(), flight_frames_, flight_audio_.data());
}

void FrameAudio::finish_flight() {
    if (!worker_ || !worker_->busy()) return;
    const double ms = worker_->wait();
    deliver(flight_audio_.data(), std::exchange(flight_frames_, 0),
            std::chrono::steady_clock::now(), ms);
}

void FrameAudio::switch_overlap(bool beside) {
    if (!beside) finish_flight();
    backend::ExecContext one = stream_exec_;
    one.pool = nullptr;
    stream_->set_exec(beside ? one : stream_exec_);
    if (single_threaded_) single_threaded_(beside);
    if (beside && !worker_) {  // the worker and its packet's buffers, once per request
        worker_ = std::make_unique<CodecWorker>();
        flight_codes_.resize(pending_.size());
        flight_audio_.resize(audio_.size());
    }
    beside_ = beside;
}

void FrameAudio::push_frame(const int32_t* codes) {
    QWEN3TTS_ASSERT(n_pending_ < kMaxPendingFrames);
    for (int64_t g = 0; g < n_cb_; ++g) pending_[size_t(n_pending_ * n_cb_ + g)] = codes[g];
    ++n_pending_;
}

bool FrameAudio::packet_due() const {
    return n_pending_ > 0 && (n_decoded_ == 0 || n_pending_ >= kPacketFrames);
}

bool FrameAudio::flush() {
    if (beside_) switch_overlap(false);
    if (n_pending_ == 0) return keep_going_;
    using clock = std::chrono::steady_clock;
    const auto t0 = clock::now();
    stream_->decode_frames(pending_.data(), n_pending_, audio_.data());
    const auto t1 = clock::now();
    deliver(audio_.data(), std::exchange(n_pending_, 0), t1, ms_between(t0, t1));
    return keep_going_;
}

void FrameAudio::flush_batch(FrameAudio* const* audio, int n, std::exception_ptr* errors) {
    std::vector<CodecStream*> streams;
    std::vector<const int64_t*> codes;
    std::vector<int64_t> frames;
    std::vector<float*> out;
    int64_t total = 0;
    for (int i = 0; i < n; ++i) {
        FrameAudio& a = *audio[i];
        if (a.n_pending_ == 0) continue;
        streams.push_back(a.stream_.get());
        codes.push_back(a.pending_.data());
        frames.push_back(a.n_pending_);
        out.push_back(a.audio_.data());
        total += a.n_pending_;
    }
    if (streams.empty()) return;
    using clock = std::chrono::steady_clock;
    const auto t0 = clock::now();
    CodecStream::decode_batch(streams.data(), codes.data(), frames.data(), out.data(),
                              int(streams.size()));
    const auto t1 = clock::now();
    const double ms = ms_between(t0, t1);
    for (int i = 0; i < n; ++i) {
        if (audio[i]->n_pending_ == 0) continue;
        try {
            FrameAudio& a = *audio[i];
            const int64_t done = std::exchange(a.n_pending_, 0);
            a.deliver(a.audio_.data(), done, t1, ms * double(done) / double(total));
        } catch (...) {
            errors[i] = std::current_exception();
        }
    }
}

void FrameAudio::deliver(const float* audio, int64_t frames,
                         std::chrono::steady_clock::time_point decoded, double codec_ms) {
    codec_ms_ += codec_ms;
    if (n_decoded_ == 0) first_audio_ = decoded;
    const size_t n = size_t(frames * spf_);
    samples_ += int64_t(n);
    n_decoded_ += frames;
    if (on_audio_ && keep_going_) keep_going_ = on_audio_(audio, n);
}

}  // namespace qwen3tts
