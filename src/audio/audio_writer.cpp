#include "audio/audio_writer.hpp"

#include "audio/audio_encoder.hpp"
#include "audio/byte_sink.hpp"
#include "core/error.hpp"

namespace qwen3tts {

AudioWriter::AudioWriter(const std::string& path, AudioFormat format, int sample_rate, int channels)
    : format_(format), sample_rate_(sample_rate), channels_(channels) {
    open(open_path_sink(path));
}

AudioWriter::AudioWriter(ByteCallback sink, AudioFormat format, int sample_rate, int channels)
    : format_(format), sample_rate_(sample_rate), channels_(channels) {
    open(open_callback_sink(std::move(sink)));
}

void AudioWriter::open(std::unique_ptr<ByteSink> sink) {
    sink_ = std::move(sink);
    encoder_ = make_audio_encoder(format_, *sink_, sample_rate_, channels_);
    encoder_->flush();  // the header goes out before the first chunk is ready
}

// Members are destroyed in reverse order: the encoder first (it may still hold the sink), then
// the sink, which removes an uncommitted temporary file.
AudioWriter::~AudioWriter() = default;

void AudioWriter::write(const float* samples, size_t n_frames) {
    if (finished_)
        throw Error(ErrorCode::invalid_argument, sink_->name() + ": audio written after finish()");
    if (n_frames == 0) return;
    QWEN3TTS_ASSERT(samples != nullptr);
    encoder_->write(samples, n_frames);
    encoder_->flush();
    frames_written_ += int64_t(n_frames);
}

void AudioWriter::flush() {
    if (!finished_) encoder_->flush();
}

void AudioWriter::finish() {
    if (finished_) return;
    finished_ = true;
    encoder_->finish();
    encoder_->flush();
    encoder_.reset();
    sink_->commit();
}

void write_audio_file(const std::string& path, AudioFormat format,
                      const std::vector<float>& samples, int sample_rate) {
    AudioWriter writer(path, format, sample_rate, 1);
    writer.write(samples.data(), samples.size());
    writer.finish();
}

}  // namespace qwen3tts
