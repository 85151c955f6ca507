// C API: models (load, info, tokenizer, codec decode and encode).
#include "api/c_api_support.hpp"
#include "api/model_impl.hpp"

using qwen3tts::capi::guarded;
using qwen3tts::capi::malloc_copy;
using qwen3tts::capi::require;

namespace {

void transfer_load_options(const void* from, void* to, size_t size) {
    qwen3tts::capi::copy_fields(from, to, size, &qwen3tts_load_options::pretokenizer,
                                &qwen3tts_load_options::mmap, &qwen3tts_load_options::quant,
                                &qwen3tts_load_options::copy_frame_weights,
                                &qwen3tts_load_options::codec_conv);
}

void transfer_info(const void* from, void* to, size_t size) {
    using I = qwen3tts_model_info;
    qwen3tts::capi::copy_fields(
        from, to, size, &I::dir, &I::type, &I::size, &I::hidden_size, &I::talker_layers,
        &I::n_speakers, &I::speakers, &I::speaker_dialects, &I::n_languages, &I::languages,
        &I::n_dialects, &I::dialects, &I::takes_instruction, &I::weight_bytes, &I::n_codebook,
        &I::codebook_size, &I::sample_rate, &I::language_codes, &I::quant, &I::codec_conv);
}

qwen3tts_load_options default_load_options() {
    const qwen3tts::LoadOptions d;
    qwen3tts_load_options o{};
    o.struct_size = sizeof o;
    o.pretokenizer = nullptr;  // the C++ default
    o.mmap = d.mmap ? 1 : 0;
    o.quant = nullptr;  // the C++ default
    o.copy_frame_weights = d.copy_frame_weights ? 1 : 0;
    o.codec_conv = nullptr;  // the C++ default
    return o;
}

std::vector<const char*> c_strings(const std::vector<std::string>& v) {
    std::vector<const char*> out;
    out.reserve(v.size());
    for (const std::string& s : v) out.push_back(s.c_str());
    return out;
}

const CModelInfo& cached_info(const qwen3tts_model* m) {
    std::call_once(m->info_once, [m] {
        CModelInfo& c = m->info;
        c.info = m->model.info();
        c.sample_rate = m->model.impl()->codec_config().output_sample_rate;
        c.speakers = c_strings(c.info.speakers);
        c.speaker_dialects = c_strings(c.info.speaker_dialects);
        c.languages = c_strings(c.info.languages);
        c.language_codes = c_strings(c.info.language_codes);
        c.dialects = c_strings(c.info.dialects);
    });
    return m->info;
}

}  // namespace

extern "C" {

void qwen3tts_load_options_init(qwen3tts_load_options* options, size_t struct_size) {
    qwen3tts::capi::init_struct(options, struct_size, default_load_options(),
                                transfer_load_options);
}

int qwen3tts_model_load(const char* model, const qwen3tts_load_options* options,
                        qwen3tts_model** out) {
    return guarded([&] {
        require(out, "qwen3tts_model_load", "out");
        *out = nullptr;
        require(model, "qwen3tts_model_load", "model");
        qwen3tts_load_options c = default_load_options();
        if (options)
            transfer_load_options(options, &c,
                                  qwen3tts::capi::struct_size_of(options, "qwen3tts_load_options",
                                                                 "use qwen3tts_load_options_init"));
        qwen3tts::LoadOptions o;
        if (c.pretokenizer) o.pretokenizer = c.pretokenizer;
        o.mmap = c.mmap != 0;
        if (c.quant) o.quant = c.quant;
        o.copy_frame_weights = c.copy_frame_weights != 0;
        if (c.codec_conv) o.codec_conv = c.codec_conv;
        auto handle = std::make_unique<qwen3tts_model>();
        handle->model = qwen3tts::Model::load(model, o);
        *out = handle.release();
    });
}

void qwen3tts_model_free(qwen3tts_model* model) {
    delete model;
}

int qwen3tts_model_get_info(const qwen3tts_model* model, qwen3tts_model_info* info) {
    return guarded([&] {
        require(model, "qwen3tts_model_get_info", "model");
        require(info, "qwen3tts_model_get_info", "info");
        const size_t size = qwen3tts::capi::struct_size_of(info, "qwen3tts_model_info",
                                                           "set it to sizeof(qwen3tts_model_info)");
        const CModelInfo& c = cached_info(model);
        qwen3tts_model_info i{};
        i.struct_size = size;
        i.dir = c.info.dir.c_str();
        i.type = c.info.type.c_str();
        i.size = c.info.size.c_str();
        i.hidden_size = c.info.hidden_size;
        i.talker_layers = c.info.talker_layers;
        i.n_speakers = c.speakers.size();
        i.speakers = c.speakers.data();
        i.speaker_dialects = c.speaker_dialects.data();
        i.n_languages = c.languages.size();
        i.languages = c.languages.data();
        i.n_dialects = c.dialects.size();
        i.dialects = c.dialects.data();
        i.takes_instruction = c.info.takes_instruction ? 1 : 0;
        i.weight_bytes = c.info.weight_bytes;
        i.n_codebook = c.info.n_codebook;
        i.codebook_size = c.info.codebook_size;
        i.sample_rate = c.sample_rate;
        i.language_codes = c.language_codes.data();
        i.quant = c.info.quant.c_str();
        i.codec_conv = c.info.codec_conv.c_str();
        transfer_info(&i, info, size);
    });
}

int qwen3tts_model_tokenize(const qwen3tts_model* model, const char* text, int32_t** ids,
                            size_t* n_ids) {
    return guarded([&] {
        require(ids, "qwen3tts_model_tokenize", "ids");
        *ids = nullptr;
        require(n_ids, "qwen3tts_model_tokenize", "n_ids");
        *n_ids = 0;
        require(model, "qwen3tts_model_tokenize", "model");
        require(text, "qwen3tts_model_tokenize", "text");
        const std::vector<int32_t> v = model->model.tokenize(text);
        *ids = malloc_copy(v);
        *n_ids = v.size();
    });
}

int qwen3tts_model_decode(const qwen3tts_model* model, const int32_t* codes, size_t n_frames,
                          const char* codec_decode, int threads, float** samples,
                          size_t* n_samples) {
    return guarded([&] {
        require(samples, "qwen3tts_model_decode", "samples");
        *samples = nullptr;
        require(n_samples, "qwen3tts_model_decode", "n_samples");
        *n_samples = 0;
        require(model, "qwen3tts_model_decode", "model");
        if (n_frames > 0) require(codes, "qwen3tts_model_decode", "codes");
        const size_t n_codebook = size_t(model->model.impl()->codec_config().n_codebook);
        const size_t n =
            qwen3tts::capi::checked_product(n_frames, n_codebook, "qwen3tts_model_decode: codes");
        const std::vector<int32_t> v(codes, codes + n);
        const std::vector<float> wav =
            model->model.decode(v, codec_decode ? codec_decode : "streaming", threads);
        *samples = malloc_copy(wav);
        *n_samples = wav.size();
    });
}

int qwen3tts_model_encode_audio(const qwen3tts_model* model, const char* audio_path, int threads,
                                double max_seconds, int32_t** codes, size_t* n_frames) {
    return guarded([&] {
        require(codes, "qwen3tts_model_encode_audio", "codes");
        *codes = nullptr;
        require(n_frames, "qwen3tts_model_encode_audio", "n_frames");
        *n_frames = 0;
        require(model, "qwen3tts_model_encode_audio", "model");
        require(audio_path, "qwen3tts_model_encode_audio", "audio_path");
        const auto e =
            model->model.encode_audio(audio_path, threads, max_seconds > 0 ? max_seconds : 600.0);
        *codes = malloc_copy(e.codes);
        *n_frames = size_t(e.frames);
    });
}

}  // extern "C"
