#include <algorithm>
#include <atomic>
#include <cstdint>

#include "api/model_impl.hpp"
#include "api/option_parsing.hpp"
#include "api/voice_impl.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "core/rng.hpp"
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
        PromptRequest req;
        req.text = text;
        req.language = o.language;
        req.speaker = o.speaker;
        req.instruct = o.instruct;
        req.layout = parse_text_layout(o.text_layout);
        if (!o.voice.empty()) {
            const Voice::Impl& v = *o.voice.impl();
            check_voice_fits(v.file, model->model->config(), model->codec_config().codebook_size,
                             v.path.empty() ? std::string("voice") : v.path);
            req.voice = &v.file.voice;
        }
        return session.build_prompt(req);
    }

    static const VoiceClonePrompt* voice_of(const SynthesisOptions& o) {
        return o.voice.empty() ? nullptr : &o.voice.impl()->file.voice;
    }

    GenerationParams params(const SynthesisOptions& o) const {
        auto to_params = [](const SamplingOptions& s) {
            return SamplingParams{s.do_sample, s.temperature, s.top_k, s.top_p,
                                  s.repetition_penalty};
        };
        GenerationParams p;
        p.talker = to_params(o.talker);
        p.predictor = to_params(o.predictor);
        p.predictor.repetition_penalty = 1.0f;  // the official code has none for codebooks 1-15
        if (o.max_frames < 0)
            throw Error(ErrorCode::invalid_argument,
                        "max frames must be positive, got " + std::to_string(o.max_frames));
        // Generation ends at the talker's context anyway; bounding the request by it keeps
        // max_frames + 1 from overflowing for "unlimited" values such as INT_MAX.
        const int context = model->model->config().talker.max_position_embeddings;
        if (o.max_frames >= context)
            log_info("max frames " + std::to_string(o.max_frames) +
                     " exceeds the model's context (" + std::to_string(context) +
                     " positions, prompt included); generation stops at its end");
        p.max_new_tokens = o.max_frames > 0 ? std::min(o.max_frames, context) + 1
                                            : model->model->config().generation.max_new_tokens;
        if (o.min_frames < 0)
            throw Error(ErrorCode::invalid_argument,
                        "min frames must be >= 0, got " + std::to_string(o.min_frames));
        if (o.min_frames > 0 && o.max_frames > 0 && o.min_frames > o.max_frames)
            throw Error(ErrorCode::invalid_argument, "min frames " + std::to_string(o.min_frames) +
                                                         " is more than max frames " +
                                                         std::to_string(o.max_frames));
        // Codebook-0 token k (1-based) is drawn after k - 1 others: EOS masked for the first
        // min_frames tokens makes each of them a frame.
        p.min_new_tokens = std::max(p.min_new_tokens, o.min_frames);
        p.seed = o.seed ? *o.seed : random_seed();
        return p;
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

GenerationReport to_report(const GenerationStats& s, uint64_t seed) {
    GenerationReport r;
    r.seed = seed;
    r.prompt_positions = s.prompt_positions;
    r.frames = s.frames;
    r.stopped_at_eos = s.stopped_at_eos;
    r.prefill_ms = s.prefill_ms;
    r.talker_ms = s.talker_ms;
    r.predictor_ms = s.predictor_ms;
    return r;
}

}  // namespace

Synthesizer::Synthesizer(const Model& model, const EngineOptions& options) {
    if (!model.impl()) throw Error(ErrorCode::invalid_argument, "Synthesizer: model not loaded");
    SessionOptions so;
    so.threads = options.threads;
    so.oversubscribe = options.oversubscribe;
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
    const Prompt prompt = impl_->prompt(text, options);
    const GenerationParams params = impl_->params(options);
    GenerationHooks hooks;
    if (on_frame) hooks.on_frame = [&](int64_t, const int32_t* codes) { return on_frame(codes); };
    GenerationStats stats;
    auto codes = impl_->session.generate(prompt, params, hooks, &stats);
    if (report) *report = to_report(stats, params.seed);
    return codes;
}

std::vector<float> Synthesizer::speak(const std::string& text, const SynthesisOptions& options,
                                      const std::function<bool(const float*, size_t)>& on_audio,
                                      SpeechReport* report) {
    const BusyGuard busy(Impl::busy_flag(impl_));
    const CodecDecodeMode mode = parse_codec_decode(options.codec_decode);
    const Prompt prompt = impl_->prompt(text, options);
    const GenerationParams params = impl_->params(options);
    const CodecDecoder& codec = impl_->model->codec();
    std::vector<float> all;
    AudioCallback sink = on_audio;
    if (!sink)
        sink = [&](const float* s, size_t n) {
            all.insert(all.end(), s, s + n);
            return true;
        };
    const SpeechStats st = synthesize_speech(impl_->session, codec, prompt, params,
                                             Impl::voice_of(options), mode, sink);
    if (report) {
        report->generation = to_report(st.generation, params.seed);
        report->codec_ms = st.codec_ms;
        report->first_audio_ms = st.first_audio_ms;
        report->total_ms = st.total_ms;
        report->samples = st.samples;
    }
    return all;
}

}  // namespace qwen3tts
