// A one-line progress display on stderr for long runs. Shown only when stderr is a terminal,
// --quiet is not given and the run has taken longer than 2 s (QWEN3TTS_PROGRESS_DELAY_MS
// changes that delay); rewritten in place at most 4 times a second and erased before the
// closing line, so logs and pipes see the closing line alone.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

namespace qwen3tts::cli {

class Progress {
  public:
    // `what`: the activity ("speaking", "encoding"). `sample_rate`: of the audio made (to
    // turn frames and samples into seconds).
    Progress(std::string what, bool quiet, int sample_rate);
    ~Progress();
    Progress(const Progress&) = delete;
    Progress& operator=(const Progress&) = delete;

    // From the generation callbacks: the frames / audio samples made so far.
    void frames(int64_t n);
    void samples(int64_t n);
    // For calls without progress callbacks (voice, encode): a thread redraws the elapsed
    // time until finish().
    void start_elapsed_ticker();
    // Erases the line (and stops the ticker); call before printing the closing line.
    void finish();

  private:
    using Clock = std::chrono::steady_clock;
    void draw(const std::string& detail);
    std::string what_;
    bool enabled_ = false;
    int sample_rate_;
    std::chrono::milliseconds delay_{2000};
    Clock::time_point start_, last_draw_;
    bool shown_ = false;
    std::mutex mutex_;
    std::condition_variable stop_cv_;
    bool stop_ = false;
    std::thread ticker_;
};

// Samples per codec frame of the released checkpoints (12.5 frames per second at 24 kHz).
constexpr int64_t kSamplesPerFrame = 1920;

}  // namespace qwen3tts::cli
