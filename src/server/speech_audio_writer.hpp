// The encoder of one speech response, with the request's `speed` applied on the way in: the
// samples are time-stretched chunk by chunk (audio/time_stretch.hpp) and what the stretcher
// gives is encoded at once, so a stretched response still streams. At speed 1 there is no
// stretcher and the samples go to the encoder untouched (byte-identical to `speak`). Used by
// the HTTP and the WebSocket speech endpoints alike.
#pragma once

#include <memory>
#include <vector>

#include "audio/audio_writer.hpp"
#include "audio/time_stretch.hpp"

namespace qwen3tts::server {

class SpeechAudioWriter {
  public:
    SpeechAudioWriter(AudioWriter::ByteCallback sink, AudioFormat format, int sample_rate,
                      double speed)
        : writer_(std::move(sink), format, sample_rate) {
        if (speed != 1.0) stretch_ = std::make_unique<TimeStretch>(sample_rate, speed);
    }

    void write(const float* samples, size_t n) {
        if (!stretch_) return writer_.write(samples, n);
        stretched_.clear();
        stretch_->process(samples, n, stretched_);
        if (!stretched_.empty()) writer_.write(stretched_.data(), stretched_.size());
    }

    // The stretcher's last samples, then the format's trailer.
    void finish() {
        if (stretch_) {
            stretched_.clear();
            stretch_->finish(stretched_);
            if (!stretched_.empty()) writer_.write(stretched_.data(), stretched_.size());
        }
        writer_.finish();
    }

  private:
    AudioWriter writer_;
    std::unique_ptr<TimeStretch> stretch_;  // null at speed 1
    std::vector<float> stretched_;
};

}  // namespace qwen3tts::server
