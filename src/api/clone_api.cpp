// Model::clone_voice: reference audio → x-vector (speaker encoder) and, in-context, the
// reference codes (codec encoder), as Qwen3TTSModel.create_voice_clone_prompt does.
#include <cstdio>

#include "api/model_impl.hpp"
#include "api/voice_impl.hpp"
#include "audio/audio.hpp"
#include "core/error.hpp"
#include "core/thread_pool.hpp"

namespace qwen3tts {

namespace {

constexpr int kRate = 24000;

void check_can_clone(const TtsModel& m, const VoiceCloneOptions& o) {
    if (m.config().type != ModelType::base)
        throw Error(ErrorCode::invalid_argument,
                    std::string("voice cloning needs a Base model; this is a ") +
                        model_type_name(m.config().type) + " model");
    if (!m.config().speaker_encoder.present)
        throw Error(ErrorCode::model, m.dir() +
                                          "/config.json: Base model without "
                                          "speaker_encoder_config");
    const bool blank_text = o.ref_text.find_first_not_of(" \t\r\n") == std::string::npos;
    if (!o.x_vector_only && blank_text)
        throw Error(ErrorCode::invalid_argument,
                    "in-context voice cloning needs the transcript of the reference audio "
                    "(--ref-text), or use --x-vector-only");
}

// Both sources end here: resample to 24 kHz, check, embed (and encode, in-context).
Voice clone_from_audio(const Model::Impl& impl, Audio audio, const VoiceCloneOptions& o,
                       const std::string& what, const std::string& source) {
    if (audio.sample_rate != kRate) {
        audio.samples = resample(audio.samples, audio.sample_rate, kRate);
        audio.sample_rate = kRate;
    }
    check_reference_audio(audio, o.max_seconds, what);

    const TtsModel& m = *impl.model;
    ThreadPool pool(0);
    auto voice = std::make_shared<Voice::Impl>();
    VoiceFile& f = voice->file;
    f.voice.x_vector = impl.speaker_encoder().embed(audio, {backend::KernelSet::fast, &pool});
    if (!o.x_vector_only) {
        f.voice.ref_codes =
            impl.codec_encoder().encode(audio.samples, {backend::KernelSet::fast, &pool});
        f.n_codebook = impl.codec_encoder().n_codebook();
        f.voice.ref_text = o.ref_text;
    }
    f.model_type = model_type_name(m.config().type);
    f.model_size = m.config().size;
    f.hidden_size = m.config().talker.hidden_size;
    f.source = source;
    return Voice(std::move(voice));
}

}  // namespace

// ref: qwen_tts/inference/qwen3_tts_model.py, create_voice_clone_prompt / _load_audio_to_np
Voice Model::clone_voice(const std::string& ref_audio_path, const VoiceCloneOptions& o) const {
    check_can_clone(*impl_->model, o);
    // Refused from its header (or while decoding) when too long, before it takes memory.
    Audio audio = read_audio_file(ref_audio_path, o.max_seconds);
    const auto slash = ref_audio_path.find_last_of('/');
    return clone_from_audio(
        *impl_, std::move(audio), o, ref_audio_path,
        slash == std::string::npos ? ref_audio_path : ref_audio_path.substr(slash + 1));
}

Voice Model::clone_voice(const float* samples, size_t n_samples, int sample_rate,
                         const VoiceCloneOptions& o) const {
    check_can_clone(*impl_->model, o);
    // Rates outside what audio hardware and files use are a caller's mistake (or garbage).
    constexpr int kMinRate = 1000, kMaxRate = 768000;
    if (sample_rate < kMinRate || sample_rate > kMaxRate)
        throw Error(ErrorCode::invalid_argument, "reference samples: sample rate " +
                                                     std::to_string(sample_rate) +
                                                     " Hz is outside " + std::to_string(kMinRate) +
                                                     ".." + std::to_string(kMaxRate) + " Hz");
    if (n_samples > 0 && !samples)
        throw Error(ErrorCode::invalid_argument, "reference samples: the pointer is NULL");
    // Too long is refused before the copy; the rest is checked at the caller's rate so that
    // a bad sample's index is the caller's.
    const double seconds = double(n_samples) / double(sample_rate);
    if (!(seconds <= o.max_seconds)) {
        char buf[96];
        std::snprintf(buf, sizeof buf, "is %.2f s long; the limit is %.2f s", seconds,
                      o.max_seconds);
        throw Error(ErrorCode::invalid_argument, std::string("reference samples ") + buf);
    }
    Audio audio;
    audio.samples.assign(samples, samples + n_samples);
    audio.sample_rate = sample_rate;
    check_reference_audio(audio, o.max_seconds, "reference samples");
    return clone_from_audio(*impl_, std::move(audio), o, "reference samples", "samples");
}

}  // namespace qwen3tts
