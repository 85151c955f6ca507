#include "api/request_building.hpp"

#include <algorithm>

#include "api/option_parsing.hpp"
#include "api/voice_impl.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "core/rng.hpp"
#include "text/text_segments.hpp"

namespace qwen3tts {

PromptRequest prompt_request(const Model::Impl& model, const std::string& text,
                             const SynthesisOptions& o) {
    PromptRequest req;
    req.text = text;
    req.language = o.language;
    req.speaker = o.speaker;
    req.instruct = o.instruct;
    req.layout = parse_text_layout(o.text_layout);
    if (!o.voice.empty()) {
        const Voice::Impl& v = *o.voice.impl();
        check_voice_fits(v.file, model.model->config(), model.codec_config().codebook_size,
                         v.path.empty() ? std::string("voice") : v.path);
        req.voice = &v.file.voice;
    }
    return req;
}

GenerationParams generation_params(const Model::Impl& model, const SynthesisOptions& o) {
    auto to_params = [](const SamplingOptions& s) {
        return SamplingParams{s.do_sample, s.temperature, s.top_k, s.top_p, s.repetition_penalty};
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
    const int context = model.model->config().talker.max_position_embeddings;
    if (o.max_frames >= context)
        log_info("max frames " + std::to_string(o.max_frames) + " exceeds the model's context (" +
                 std::to_string(context) +
                 " positions, prompt included); generation stops at its end");
    p.max_new_tokens = o.max_frames > 0 ? std::min(o.max_frames, context) + 1
                                        : model.model->config().generation.max_new_tokens;
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
    p.validate();
    return p;
}

GenerationReport generation_report(const GenerationStats& s, uint64_t seed) {
    GenerationReport r;
    r.seed = seed;
    r.prompt_positions = s.prompt_positions;
    r.reused_positions = s.reused_positions;
    r.frames = s.frames;
    r.stopped_at_eos = s.stopped_at_eos;
    r.prefill_ms = s.prefill_ms;
    r.talker_ms = s.talker_ms;
    r.predictor_ms = s.predictor_ms;
    return r;
}

size_t segment_chars(const SynthesisOptions& o) {
    if (o.segment_chars < 0)
        throw Error(ErrorCode::invalid_argument,
                    "segment_chars must be >= 0 (0 = the whole text at once), got " +
                        std::to_string(o.segment_chars));
    return size_t(o.segment_chars);
}

std::vector<std::string> spoken_segments(const std::string& text, const SynthesisOptions& o) {
    const size_t max_chars = segment_chars(o);
    if (max_chars == 0) return {text};
    std::vector<std::string> segments = split_text_segments(text, max_chars);
    // Whitespace only: the prompt of the text itself says what is wrong with it.
    if (segments.empty()) segments.push_back(text);
    return segments;
}

}  // namespace qwen3tts
