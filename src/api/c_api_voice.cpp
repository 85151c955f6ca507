// C API: cloned voices (from an audio file or samples; .voice files).
#include <memory>

#include "api/c_api_support.hpp"
#include "api/voice_impl.hpp"

using qwen3tts::capi::guarded;
using qwen3tts::capi::require;

namespace {

void transfer_clone_options(const void* from, void* to, size_t size) {
    qwen3tts::capi::copy_fields(from, to, size, &qwen3tts_clone_options::ref_text,
                                &qwen3tts_clone_options::x_vector_only,
                                &qwen3tts_clone_options::max_seconds);
}

qwen3tts_clone_options default_clone_options() {
    const qwen3tts::VoiceCloneOptions d;
    qwen3tts_clone_options o{};
    o.struct_size = sizeof o;
    o.ref_text = nullptr;
    o.x_vector_only = d.x_vector_only ? 1 : 0;
    o.max_seconds = d.max_seconds;
    return o;
}

qwen3tts::VoiceCloneOptions to_clone_options(const qwen3tts_clone_options* options) {
    qwen3tts_clone_options c = default_clone_options();
    if (options)
        transfer_clone_options(options, &c,
                               qwen3tts::capi::struct_size_of(options, "qwen3tts_clone_options",
                                                              "use qwen3tts_clone_options_init"));
    qwen3tts::VoiceCloneOptions o;
    if (c.ref_text) o.ref_text = c.ref_text;
    o.x_vector_only = c.x_vector_only != 0;
    o.max_seconds = c.max_seconds;
    return o;
}

void hand_out(qwen3tts::Voice voice, qwen3tts_voice** out) {
    *out = new qwen3tts_voice{std::move(voice)};
}

}  // namespace

extern "C" {

void qwen3tts_clone_options_init(qwen3tts_clone_options* options, size_t struct_size) {
    qwen3tts::capi::init_struct(options, struct_size, default_clone_options(),
                                transfer_clone_options);
}

int qwen3tts_voice_clone(const qwen3tts_model* model, const char* ref_audio_path,
                         const qwen3tts_clone_options* options, qwen3tts_voice** out) {
    return guarded([&] {
        require(out, "qwen3tts_voice_clone", "out");
        *out = nullptr;
        require(model, "qwen3tts_voice_clone", "model");
        require(ref_audio_path, "qwen3tts_voice_clone", "ref_audio_path");
        hand_out(model->model.clone_voice(ref_audio_path, to_clone_options(options)), out);
    });
}

int qwen3tts_voice_clone_samples(const qwen3tts_model* model, const float* samples,
                                 size_t n_samples, int sample_rate,
                                 const qwen3tts_clone_options* options, qwen3tts_voice** out) {
    return guarded([&] {
        require(out, "qwen3tts_voice_clone_samples", "out");
        *out = nullptr;
        require(model, "qwen3tts_voice_clone_samples", "model");
        require(samples, "qwen3tts_voice_clone_samples", "samples");
        hand_out(
            model->model.clone_voice(samples, n_samples, sample_rate, to_clone_options(options)),
            out);
    });
}

int qwen3tts_voice_load(const char* path, qwen3tts_voice** out) {
    return guarded([&] {
        require(out, "qwen3tts_voice_load", "out");
        *out = nullptr;
        require(path, "qwen3tts_voice_load", "path");
        hand_out(qwen3tts::Voice::load(path), out);
    });
}

int qwen3tts_voice_save(const qwen3tts_voice* voice, const char* path) {
    return guarded([&] {
        require(voice, "qwen3tts_voice_save", "voice");
        require(path, "qwen3tts_voice_save", "path");
        voice->voice.save(path);
    });
}

void qwen3tts_voice_free(qwen3tts_voice* voice) {
    delete voice;
}

int qwen3tts_voice_in_context(const qwen3tts_voice* voice) {
    return voice && voice->voice.in_context() ? 1 : 0;
}

const char* qwen3tts_voice_ref_text(const qwen3tts_voice* voice) {
    if (!voice || voice->voice.empty()) return "";
    return voice->voice.impl()->file.voice.ref_text.c_str();
}

}  // extern "C"
