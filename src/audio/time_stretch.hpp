// Tempo change with the pitch kept (OpenAI's `speed` of POST /v1/audio/speech), streaming, on
// SoundTouch's WSOLA stretcher (libSoundTouch, LGPL-2.1, linked dynamically). Built as its own
// library (qwen3tts_time_stretch), not part of libqwen3tts: only the server uses it.
//
// The output of a stream is n_in / speed samples long, to rounding: finish() pads the pipeline
// with silence and cuts the result to SoundTouch's count of the samples due. The output does not
// depend on how the input is split: process() calls plus finish() give exactly what one
// process() of all the samples plus finish() gives. Fed one codec frame (80 ms) at a time, the
// output lags input / speed by at most 40 ms at speed 2 and 170 ms at speed 0.25 (measured);
// finish() returns that tail.
// Not thread-safe; one instance per stream.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

namespace soundtouch {
class SoundTouch;
}

namespace qwen3tts {

constexpr double kMinSpeed = 0.25;  // OpenAI's range for `speed`
constexpr double kMaxSpeed = 4.0;

class TimeStretch {
  public:
    // Mono float samples at sample_rate; speed in [kMinSpeed, kMaxSpeed] (2 = half the
    // duration), else Error(invalid_argument) naming speed and its value.
    TimeStretch(int sample_rate, double speed);
    ~TimeStretch();
    TimeStretch(const TimeStretch&) = delete;
    TimeStretch& operator=(const TimeStretch&) = delete;

    // Appends the stretched samples available so far to `out`.
    void process(const float* in, size_t n, std::vector<float>& out);
    // Ends the stream: appends the remaining samples. process() may not follow.
    void finish(std::vector<float>& out);

  private:
    void receive(std::vector<float>& out);

    std::unique_ptr<soundtouch::SoundTouch> st_;
    bool finished_ = false;
};

}  // namespace qwen3tts
