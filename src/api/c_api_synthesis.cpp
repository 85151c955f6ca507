// C API: synthesis options, synthesizers, codes and speech (whole or streamed to callbacks).
#include <chrono>
#include <functional>
#include <memory>

#include "api/c_api_options.hpp"
#include "api/c_api_support.hpp"
#include "api/model_impl.hpp"
#include "api/option_parsing.hpp"

using qwen3tts::capi::guarded;
using qwen3tts::capi::malloc_copy;
using qwen3tts::capi::require;

namespace {

void transfer_options(const void* from, void* to, size_t size) {
    using O = qwen3tts_options;
    qwen3tts::capi::copy_fields(from, to, size, &O::language, &O::speaker, &O::instruct, &O::voice,
                                &O::text_layout, &O::talker, &O::predictor, &O::max_frames,
                                &O::has_seed, &O::seed, &O::codec_decode, &O::segment_chars,
                                &O::codec_overlap);
}

void transfer_report(const void* from, void* to, size_t size) {
    using R = qwen3tts_report;
    qwen3tts::capi::copy_fields(from, to, size, &R::prompt_positions, &R::frames,
                                &R::stopped_at_eos, &R::cancelled, &R::seed, &R::prefill_ms,
                                &R::talker_ms, &R::predictor_ms, &R::codec_ms, &R::first_audio_ms,
                                &R::total_ms, &R::samples, &R::reused_positions);
}

qwen3tts_sampling to_c(const qwen3tts::SamplingOptions& s) {
    return {s.do_sample ? 1 : 0, s.temperature, s.top_k, s.top_p, s.repetition_penalty};
}

qwen3tts::SamplingOptions from_c(const qwen3tts_sampling& s) {
    return {s.do_sample != 0, s.temperature, s.top_k, s.top_p, s.repetition_penalty};
}

// The checkpoint's generation_config.json, or without a model the released checkpoints'
// values (those of SynthesisOptions; the predictor has no repetition penalty).
qwen3tts_options default_options(const qwen3tts::Model* model) {
    qwen3tts::SynthesisOptions d;
    if (model) d = model->default_options();
    qwen3tts_options o{};
    o.struct_size = sizeof o;
    o.talker = to_c(d.talker);
    o.predictor = to_c(d.predictor);
    o.predictor.repetition_penalty = 1.0f;
    o.max_frames = 0;  // the model's default
    o.has_seed = 0;
    return o;
}

qwen3tts_report c_report(const qwen3tts::GenerationReport& g, bool cancelled) {
    qwen3tts_report r{};
    r.struct_size = sizeof r;
    r.prompt_positions = g.prompt_positions;
    r.reused_positions = g.reused_positions;
    r.frames = g.frames;
    r.stopped_at_eos = g.stopped_at_eos ? 1 : 0;
    r.cancelled = cancelled ? 1 : 0;
    r.seed = g.seed;
    r.prefill_ms = g.prefill_ms;
    r.talker_ms = g.talker_ms;
    r.predictor_ms = g.predictor_ms;
    return r;
}

qwen3tts_report c_report(const qwen3tts::SpeechReport& s, bool cancelled) {
    qwen3tts_report r = c_report(s.generation, cancelled);
    r.codec_ms = s.codec_ms;
    r.first_audio_ms = s.first_audio_ms;
    r.total_ms = s.total_ms;
    r.samples = s.samples;
    return r;
}

}  // namespace

namespace qwen3tts::capi {

qwen3tts::SynthesisOptions to_options(const qwen3tts::Model& model,
                                      const qwen3tts_options* options) {
    // Fields past the caller's struct_size keep the model's defaults.
    qwen3tts_options c = default_options(&model);
    if (options)
        transfer_options(options, &c,
                         qwen3tts::capi::struct_size_of(options, "qwen3tts_options",
                                                        "use qwen3tts_options_init"));
    qwen3tts::SynthesisOptions o = model.default_options();
    if (c.language) o.language = c.language;
    if (c.speaker) o.speaker = c.speaker;
    if (c.instruct) o.instruct = c.instruct;
    if (c.voice) o.voice = c.voice->voice;
    if (c.text_layout) o.text_layout = c.text_layout;
    o.talker = from_c(c.talker);
    o.predictor = from_c(c.predictor);
    o.max_frames = c.max_frames;
    if (c.has_seed) o.seed = c.seed;
    if (c.codec_decode) o.codec_decode = c.codec_decode;
    o.segment_chars = c.segment_chars;
    if (c.codec_overlap) o.codec_overlap = c.codec_overlap;
    // Checked here too, so that generate_codes refuses a bad value as speak does.
    qwen3tts::parse_codec_decode(o.codec_decode);
    qwen3tts::parse_codec_overlap(o.codec_overlap);
    return o;
}

// Codes per frame of what generate_codes returns.
size_t frame_width(const qwen3tts::Model& model) {
    return size_t(model.impl()->model->config().talker.num_code_groups);
}

// The caller's report size, checked before any work (0 = never set).
size_t report_size(const qwen3tts_report* report) {
    return report ? qwen3tts::capi::struct_size_of(report, "qwen3tts_report",
                                                   "set it to sizeof(qwen3tts_report)")
                  : 0;
}

void hand_out_report(const qwen3tts::SpeechReport& r, bool cancelled, qwen3tts_report* out,
                     size_t size) {
    if (!out) return;
    const qwen3tts_report c = c_report(r, cancelled);
    transfer_report(&c, out, size);
}

}  // namespace qwen3tts::capi

using qwen3tts::capi::frame_width;
using qwen3tts::capi::hand_out_report;
using qwen3tts::capi::report_size;
using qwen3tts::capi::to_options;

namespace {

// Runs generate_codes with an optional C frame callback; returns the codes.
std::vector<int32_t> run_codes(qwen3tts_synthesizer* synth, const char* text,
                               const qwen3tts_options* options, qwen3tts_frame_callback on_frame,
                               void* user_data, qwen3tts_report* report) {
    const size_t size = report_size(report);
    const qwen3tts::SynthesisOptions o = to_options(synth->model, options);
    const size_t n_codebook = frame_width(synth->model);
    bool cancelled = false;
    std::function<bool(const int32_t*)> hook;
    if (on_frame)
        hook = [&](const int32_t* frame) {
            cancelled = on_frame(frame, n_codebook, user_data) != 0;
            return !cancelled;
        };
    qwen3tts::GenerationReport g;
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<int32_t> codes = synth->synth.generate_codes(text, o, hook, &g);
    if (report) {
        qwen3tts_report c = c_report(g, cancelled);
        c.total_ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                .count();
        transfer_report(&c, report, size);
    }
    return codes;
}

}  // namespace

extern "C" {

void qwen3tts_options_init(const qwen3tts_model* model, qwen3tts_options* options,
                           size_t struct_size) {
    try {
        qwen3tts::capi::init_struct(options, struct_size,
                                    default_options(model ? &model->model : nullptr),
                                    transfer_options);
    } catch (...) {  // out of memory copying the defaults: the caller's struct stays as it was
    }
}

int qwen3tts_synthesizer_new(const qwen3tts_model* model, int threads, qwen3tts_synthesizer** out) {
    return guarded([&] {
        require(out, "qwen3tts_synthesizer_new", "out");
        *out = nullptr;
        require(model, "qwen3tts_synthesizer_new", "model");
        qwen3tts::EngineOptions o;
        o.threads = threads;
        *out = new qwen3tts_synthesizer{qwen3tts::Synthesizer(model->model, o), model->model};
    });
}

void qwen3tts_synthesizer_free(qwen3tts_synthesizer* synth) {
    delete synth;
}

int qwen3tts_generate_codes(qwen3tts_synthesizer* synth, const char* text,
                            const qwen3tts_options* options, int32_t** codes, size_t* n_frames,
                            qwen3tts_report* report) {
    return guarded([&] {
        require(codes, "qwen3tts_generate_codes", "codes");
        *codes = nullptr;
        require(n_frames, "qwen3tts_generate_codes", "n_frames");
        *n_frames = 0;
        require(synth, "qwen3tts_generate_codes", "synth");
        require(text, "qwen3tts_generate_codes", "text");
        const std::vector<int32_t> v = run_codes(synth, text, options, nullptr, nullptr, report);
        *codes = malloc_copy(v);
        *n_frames = v.size() / size_t(frame_width(synth->model));
    });
}

int qwen3tts_generate_codes_stream(qwen3tts_synthesizer* synth, const char* text,
                                   const qwen3tts_options* options,
                                   qwen3tts_frame_callback on_frame, void* user_data,
                                   qwen3tts_report* report) {
    return guarded([&] {
        require(synth, "qwen3tts_generate_codes_stream", "synth");
        require(text, "qwen3tts_generate_codes_stream", "text");
        require(on_frame, "qwen3tts_generate_codes_stream", "on_frame");
        run_codes(synth, text, options, on_frame, user_data, report);
    });
}

int qwen3tts_speak(qwen3tts_synthesizer* synth, const char* text, const qwen3tts_options* options,
                   float** samples, size_t* n_samples, qwen3tts_report* report) {
    return guarded([&] {
        require(samples, "qwen3tts_speak", "samples");
        *samples = nullptr;
        require(n_samples, "qwen3tts_speak", "n_samples");
        *n_samples = 0;
        require(synth, "qwen3tts_speak", "synth");
        require(text, "qwen3tts_speak", "text");
        const size_t size = report_size(report);
        qwen3tts::SpeechReport r;
        const std::vector<float> wav =
            synth->synth.speak(text, to_options(synth->model, options), {}, &r);
        hand_out_report(r, false, report, size);
        *samples = malloc_copy(wav);
        *n_samples = wav.size();
    });
}

int qwen3tts_speak_stream(qwen3tts_synthesizer* synth, const char* text,
                          const qwen3tts_options* options, qwen3tts_audio_callback on_audio,
                          void* user_data, qwen3tts_report* report) {
    return guarded([&] {
        require(synth, "qwen3tts_speak_stream", "synth");
        require(text, "qwen3tts_speak_stream", "text");
        require(on_audio, "qwen3tts_speak_stream", "on_audio");
        const size_t size = report_size(report);
        bool cancelled = false;
        qwen3tts::SpeechReport r;
        synth->synth.speak(
            text, to_options(synth->model, options),
            [&](const float* s, size_t n) {
                cancelled = on_audio(s, n, user_data) != 0;
                return !cancelled;
            },
            &r);
        hand_out_report(r, cancelled, report, size);
    });
}

}  // extern "C"
