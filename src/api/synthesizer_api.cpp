#include <algorithm>
#include <atomic>
#include <cstdint>

#include "api/model_impl.hpp"
#include "api/option_parsing.hpp"
#include "api/request_building.hpp"
#include "api/voice_impl.hpp"
#include "core/error.hpp"
#include "runtime/session.hpp"
#include "runtime/speech.hpp"

namespace qwen3tts {

struct Synthesizer::Impl {
    std::shared_ptr<const Model::Impl> model;
    Session session;
    std::atomic<bool> busy{false};  // a call is running (the Session is single-threaded)

    static std::atomic<bool>& busy_flag(const std::unique_ptr<Impl>& impl) {
        if (!impl) throw Error(ErrorCode::invalid_argument, "Synthesizer was moved from");
        return impl->busy;
    }

    Prompt prompt(const std::string& text, const SynthesisOptions& o) const {
        return session.build_prompt(prompt_request(*model, text, o));
    }

    static const VoiceClonePrompt* voice_of(const SynthesisOptions& o) {
        return o.voice.empty() ? nullptr : &o.voice.impl()->file.voice;
    }
};

namespace {

// Marks the Synthesizer busy for one call; a second thread gets an Error instead of sharing
// the Session's caches and RNG.
class BusyGuard {
  public:
    explicit BusyGuard(std::atomic<bool>& busy) : busy_(busy) {
        if (busy_.exchange(true, std::memory_order_acquire))
            throw Error(ErrorCode::invalid_argument,
                        "Synthesizer is already in use by another thread; use one Synthesizer "
                        "per concurrent request");
    }
    ~BusyGuard() { busy_.store(false, std::memory_order_release); }
    BusyGuard(const BusyGuard&) = delete;
    BusyGuard& operator=(const BusyGuard&) = delete;

  private:
    std::atomic<bool>& busy_;
};

}  // namespace

Synthesizer::Synthesizer(const Model& model, const EngineOptions& options) {
    if (!model.impl()) throw Error(ErrorCode::invalid_argument, "Synthesizer: model not loaded");
    SessionOptions so;
    so.threads = options.threads;
    so.oversubscribe = options.oversubscribe;
    so.reuse_prompts = options.reuse_prompts;
    so.kernels = options.kernels == Kernels::reference ? backend::KernelSet::reference
                                                       : backend::KernelSet::fast;
    impl_.reset(new Impl{model.impl(), Session(model.impl()->model, so)});
}

Synthesizer::~Synthesizer() = default;
Synthesizer::Synthesizer(Synthesizer&&) noexcept = default;
Synthesizer& Synthesizer::operator=(Synthesizer&&) noexcept = default;

std::vector<int32_t> Synthesizer::generate_codes(
    const std::string& text, const SynthesisOptions& options,
    const std::function<bool(const int32_t* frame)>& on_frame, GenerationReport* report) {
    const BusyGuard busy(Impl::busy_flag(impl_));
    const std::vector<std::string> segments = spoken_segments(text, options);
    const GenerationParams params = generation_params(*impl_->model, options);
    bool keep_going = true;
    GenerationHooks hooks;
    if (on_frame)
        hooks.on_frame = [&](int64_t, const int32_t* codes) {
            return keep_going = on_frame(codes);
        };
    std::vector<int32_t> codes;
    GenerationStats stats;
    for (size_t i = 0; i < segments.size() && keep_going; ++i) {
        GenerationStats segment;
        const auto frames = impl_->session.generate(impl_->prompt(segments[i], options),
                                                    params.segment(i), hooks, &segment);
        codes.insert(codes.end(), frames.begin(), frames.end());
        stats += segment;
    }
    if (report) *report = generation_report(stats, params.seed);
    return codes;
}

std::vector<float> Synthesizer::speak(const std::string& text, const SynthesisOptions& options,
                                      const std::function<bool(const float*, size_t)>& on_audio,
                                      SpeechReport* report) {
    const BusyGuard busy(Impl::busy_flag(impl_));
    const CodecDecodeMode mode = parse_codec_decode(options.codec_decode);
    const CodecOverlap overlap = parse_codec_overlap(options.codec_overlap);
    const std::vector<std::string> segments = spoken_segments(text, options);
    const GenerationParams params = generation_params(*impl_->model, options);
    // Segment 0's prompt first: its errors (speaker, language, voice) come before the codec
    // loads, as they did for one prompt.
    size_t next = 0;
    SpeechSegment first{impl_->prompt(segments[0], options), params};
    const SegmentSource source = [&](SpeechSegment& segment) {
        if (next == segments.size()) return false;
        if (next == 0) {
            segment = std::move(first);
        } else {
            segment.prompt = impl_->prompt(segments[next], options);
            segment.params = params.segment(next);
        }
        ++next;
        return true;
    };
    const CodecDecoder& codec = impl_->model->codec();
    std::vector<float> all;
    AudioCallback sink = on_audio;
    if (!sink)
        sink = [&](const float* s, size_t n) {
            all.insert(all.end(), s, s + n);
            return true;
        };
    const SpeechStats st = synthesize_speech(impl_->session, codec, source, Impl::voice_of(options),
                                             mode, sink, overlap);
    if (report) {
        report->generation = generation_report(st.generation, params.seed);
        report->codec_ms = st.codec_ms;
        report->first_audio_ms = st.first_audio_ms;
        report->total_ms = st.total_ms;
        report->samples = st.samples;
    }
    return all;
}

}  // namespace qwen3tts
