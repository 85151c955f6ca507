#include "api/model_impl.hpp"
#include "core/error.hpp"
#include "runtime/session.hpp"

namespace qwen3tts {

struct Synthesizer::Impl {
    std::shared_ptr<const TtsModel> model;
    Session session;
};

namespace {

TextLayout parse_layout(const std::string& s) {
    if (s == "auto" || s.empty()) return TextLayout::automatic;
    if (s == "streaming") return TextLayout::streaming;
    if (s == "non-streaming") return TextLayout::non_streaming;
    throw Error(ErrorCode::invalid_argument,
                "unknown text layout '" + s + "' (auto, streaming or non-streaming)");
}

SamplingParams to_params(const SamplingOptions& o) {
    return {o.do_sample, o.temperature, o.top_k, o.top_p, o.repetition_penalty};
}

}  // namespace

Synthesizer::Synthesizer(const Model& model, const EngineOptions& options) {
    if (!model.impl()) throw Error(ErrorCode::invalid_argument, "Synthesizer: model not loaded");
    SessionOptions so;
    so.threads = options.threads;
    so.kernels = options.kernels == Kernels::reference ? backend::KernelSet::reference
                                                       : backend::KernelSet::fast;
    impl_.reset(new Impl{model.impl()->model, Session(model.impl()->model, so)});
}

Synthesizer::~Synthesizer() = default;
Synthesizer::Synthesizer(Synthesizer&&) noexcept = default;
Synthesizer& Synthesizer::operator=(Synthesizer&&) noexcept = default;

std::vector<int32_t> Synthesizer::generate_codes(
    const std::string& text, const SynthesisOptions& options,
    const std::function<bool(const int32_t* frame)>& on_frame, GenerationReport* report) {
    PromptRequest req;
    req.text = text;
    req.language = options.language;
    req.speaker = options.speaker;
    req.instruct = options.instruct;
    req.layout = parse_layout(options.text_layout);
    const Prompt prompt = impl_->session.build_prompt(req);

    GenerationParams params;
    params.talker = to_params(options.talker);
    params.predictor = to_params(options.predictor);
    params.predictor.repetition_penalty = 1.0f;
    const int default_tokens = impl_->model->config().generation.max_new_tokens;
    if (options.max_frames < 0)
        throw Error(ErrorCode::invalid_argument,
                    "max frames must be positive, got " + std::to_string(options.max_frames));
    params.max_new_tokens = options.max_frames > 0 ? options.max_frames + 1 : default_tokens;
    params.seed = options.seed;

    GenerationHooks hooks;
    if (on_frame) hooks.on_frame = [&](int64_t, const int32_t* codes) { return on_frame(codes); };
    GenerationStats stats;
    auto codes = impl_->session.generate(prompt, params, hooks, &stats);
    if (report) {
        report->prompt_positions = stats.prompt_positions;
        report->frames = stats.frames;
        report->stopped_at_eos = stats.stopped_at_eos;
        report->prefill_ms = stats.prefill_ms;
        report->talker_ms = stats.talker_ms;
        report->predictor_ms = stats.predictor_ms;
    }
    return codes;
}

}  // namespace qwen3tts
