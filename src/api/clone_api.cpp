// Model::clone_voice: reference audio → x-vector (speaker encoder) and, in-context, the
// reference codes (codec encoder), as Qwen3TTSModel.create_voice_clone_prompt does.
#include "api/model_impl.hpp"
#include "api/voice_impl.hpp"
#include "audio/audio.hpp"
#include "core/error.hpp"
#include "core/thread_pool.hpp"

namespace qwen3tts {

// ref: qwen_tts/inference/qwen3_tts_model.py, create_voice_clone_prompt / _load_audio_to_np
Voice Model::clone_voice(const std::string& ref_audio_path, const VoiceCloneOptions& o) const {
    const TtsModel& m = *impl_->model;
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
    // Refused from its header (or while decoding) when too long, before it takes memory.
    Audio audio = read_audio_file(ref_audio_path, o.max_seconds);
    constexpr int kRate = 24000;
    if (audio.sample_rate != kRate) {
        audio.samples = resample(audio.samples, audio.sample_rate, kRate);
        audio.sample_rate = kRate;
    }
    check_reference_audio(audio, o.max_seconds, ref_audio_path);

    ThreadPool pool(0);
    auto impl = std::make_shared<Voice::Impl>();
    VoiceFile& f = impl->file;
    f.voice.x_vector = impl_->speaker_encoder().embed(audio, {backend::KernelSet::fast, &pool});
    if (!o.x_vector_only) {
        f.voice.ref_codes =
            impl_->codec_encoder().encode(audio.samples, {backend::KernelSet::fast, &pool});
        f.n_codebook = impl_->codec_encoder().n_codebook();
        f.voice.ref_text = o.ref_text;
    }
    f.model_type = model_type_name(m.config().type);
    f.model_size = m.config().size;
    f.hidden_size = m.config().talker.hidden_size;
    const auto slash = ref_audio_path.find_last_of('/');
    f.source = slash == std::string::npos ? ref_audio_path : ref_audio_path.substr(slash + 1);
    return Voice(std::move(impl));
}

}  // namespace qwen3tts
