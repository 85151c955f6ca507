// C API: catches every exception at the boundary and reports it as a code + message.
#include <cstdlib>
#include <cstring>
#include <new>

#include "qwen3tts/qwen3tts.h"
#include "qwen3tts/qwen3tts.hpp"

struct qwen3tts_model {
    qwen3tts::Model model;
};
struct qwen3tts_synthesizer {
    qwen3tts::Synthesizer synth;
    qwen3tts::Model model;
};

namespace {

thread_local std::string g_last_error;

template <typename F>
int guarded(F&& f) {
    try {
        f();
        g_last_error.clear();
        return QWEN3TTS_OK;
    } catch (const qwen3tts::Error& e) {
        g_last_error = e.what();
        return int(e.code());
    } catch (const std::bad_alloc&) {
        g_last_error = "out of memory";
        return QWEN3TTS_ERR_INTERNAL;
    } catch (const std::exception& e) {
        g_last_error = e.what();
        return QWEN3TTS_ERR_INTERNAL;
    }
}

qwen3tts::SynthesisOptions to_options(const qwen3tts::Model& model, const qwen3tts_options* c) {
    qwen3tts::SynthesisOptions o = model.default_options();
    o.max_frames = 0;
    if (c) {
        if (c->language) o.language = c->language;
        if (c->speaker) o.speaker = c->speaker;
        if (c->instruct) o.instruct = c->instruct;
        if (c->greedy) o.talker.do_sample = o.predictor.do_sample = false;
        o.max_frames = c->max_frames;
        o.seed = c->seed;
    }
    return o;
}

int null_argument(const char* what) {
    g_last_error = std::string(what) + " is NULL";
    return QWEN3TTS_ERR_INVALID_ARGUMENT;
}

}  // namespace

extern "C" {

const char* qwen3tts_last_error(void) {
    return g_last_error.c_str();
}

int qwen3tts_model_load(const char* model, qwen3tts_model** out) {
    if (!model) return null_argument("model");
    if (!out) return null_argument("out");
    *out = nullptr;
    return guarded([&] { *out = new qwen3tts_model{qwen3tts::Model::load(model)}; });
}

void qwen3tts_model_free(qwen3tts_model* model) {
    delete model;
}

int qwen3tts_synthesizer_new(qwen3tts_model* model, int threads, qwen3tts_synthesizer** out) {
    if (!model) return null_argument("model");
    if (!out) return null_argument("out");
    *out = nullptr;
    return guarded([&] {
        qwen3tts::EngineOptions o;
        o.threads = threads;
        *out = new qwen3tts_synthesizer{qwen3tts::Synthesizer(model->model, o), model->model};
    });
}

void qwen3tts_synthesizer_free(qwen3tts_synthesizer* synth) {
    delete synth;
}

int qwen3tts_generate_codes(qwen3tts_synthesizer* synth, const char* text,
                            const qwen3tts_options* options, int32_t** codes, size_t* n_frames) {
    if (!synth) return null_argument("synthesizer");
    if (!text) return null_argument("text");
    if (!codes || !n_frames) return null_argument("output pointer");
    *codes = nullptr;
    *n_frames = 0;
    return guarded([&] {
        const qwen3tts::SynthesisOptions o = to_options(synth->model, options);
        const auto frames = synth->synth.generate_codes(text, o);
        auto* buf = static_cast<int32_t*>(std::malloc(frames.size() * sizeof(int32_t) + 1));
        if (!buf) throw std::bad_alloc();
        std::memcpy(buf, frames.data(), frames.size() * sizeof(int32_t));
        *codes = buf;
        *n_frames = frames.size() / size_t(synth->model.info().n_codebook);
    });
}

int qwen3tts_speak(qwen3tts_synthesizer* synth, const char* text, const qwen3tts_options* options,
                   float** samples, size_t* n_samples) {
    if (!synth) return null_argument("synthesizer");
    if (!text) return null_argument("text");
    if (!samples || !n_samples) return null_argument("output pointer");
    *samples = nullptr;
    *n_samples = 0;
    return guarded([&] {
        const auto wav = synth->synth.speak(text, to_options(synth->model, options));
        auto* buf = static_cast<float*>(std::malloc(wav.size() * sizeof(float) + 1));
        if (!buf) throw std::bad_alloc();
        std::memcpy(buf, wav.data(), wav.size() * sizeof(float));
        *samples = buf;
        *n_samples = wav.size();
    });
}

void qwen3tts_free(void* p) {
    std::free(p);
}

}  // extern "C"
