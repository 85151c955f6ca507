// The public audio entry points: AudioFileWriter (audio/ AudioWriter behind the public header)
// and Model::encode_audio (file → codec frames through the codec encoder).
#include "api/model_impl.hpp"
#include "audio/audio.hpp"
#include "core/thread_pool.hpp"

namespace qwen3tts {

struct AudioFileWriter::Impl {
    Impl(const std::string& path, AudioFormat format, int sample_rate)
        : writer(path, format, sample_rate) {}
    AudioWriter writer;
};

namespace {

AudioFormat output_format(const std::string& path, const std::string& format) {
    if (!format.empty()) return audio_format_from_name(format);
    return path == "-" ? AudioFormat::wav_pcm16 : audio_format_from_path(path);
}

}  // namespace

AudioFileWriter::AudioFileWriter(const std::string& path, int sample_rate,
                                 const std::string& format)
    : impl_(std::make_unique<Impl>(path, output_format(path, format), sample_rate)) {}

AudioFileWriter::~AudioFileWriter() = default;

void AudioFileWriter::write(const float* samples, size_t n) {
    impl_->writer.write(samples, n);
}
void AudioFileWriter::flush() {
    impl_->writer.flush();
}
void AudioFileWriter::finish() {
    impl_->writer.finish();
}

// ref: qwen_tts Qwen3TTSTokenizer.encode(path): librosa.load(sr=None, mono=True), then
// resampling to the codec rate with soxr HQ.
Model::EncodedAudio Model::encode_audio(const std::string& audio_path, int threads,
                                        double max_seconds) const {
    ThreadPool pool(resolve_thread_count(threads, "threads"));
    const Audio audio = read_audio_file(audio_path, max_seconds);
    const CodecEncoder& encoder = impl_->codec_encoder();
    const std::vector<float> wav =
        audio.sample_rate == encoder.sample_rate()
            ? audio.samples
            : resample(audio.samples, audio.sample_rate, encoder.sample_rate());
    const std::vector<int64_t> codes = encoder.encode(wav, {backend::KernelSet::fast, &pool});
    EncodedAudio out;
    out.codes.assign(codes.begin(), codes.end());
    out.n_codebook = encoder.n_codebook();
    out.frames = int64_t(codes.size()) / out.n_codebook;
    out.input_seconds = audio.duration_s();
    out.input_sample_rate = audio.sample_rate;
    return out;
}

}  // namespace qwen3tts
