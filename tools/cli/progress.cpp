#include "progress.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace qwen3tts::cli {

namespace {
constexpr std::chrono::milliseconds kRedrawInterval{250};
}

Progress::Progress(std::string what, bool quiet, int sample_rate)
    : what_(std::move(what)), sample_rate_(sample_rate), start_(Clock::now()) {
    enabled_ = !quiet && ::isatty(STDERR_FILENO) == 1;
    if (const char* d = std::getenv("QWEN3TTS_PROGRESS_DELAY_MS")) {
        char* end = nullptr;
        const long ms = std::strtol(d, &end, 10);
        if (*d && *end == '\0' && ms >= 0) delay_ = std::chrono::milliseconds(ms);
    }
}

Progress::~Progress() {
    finish();
}

void Progress::draw(const std::string& detail) {
    const auto now = Clock::now();
    if (stop_ || now - start_ < delay_ || (shown_ && now - last_draw_ < kRedrawInterval)) return;
    last_draw_ = now;
    shown_ = true;
    std::fprintf(stderr, "\r%s: %s\033[K", what_.c_str(), detail.c_str());
    std::fflush(stderr);
}

void Progress::frames(int64_t n) {
    samples(n * kSamplesPerFrame);
}

void Progress::samples(int64_t n) {
    if (!enabled_) return;
    std::lock_guard<std::mutex> lock(mutex_);
    const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
    const double audio = double(n) / double(sample_rate_);
    char buf[160];
    std::snprintf(buf, sizeof buf, "%lld frames, %.1f s of audio, real-time factor %.3f",
                  static_cast<long long>(n / kSamplesPerFrame), audio,
                  audio > 0 ? elapsed / audio : 0.0);
    draw(buf);
}

void Progress::start_elapsed_ticker() {
    if (!enabled_) return;
    ticker_ = std::thread([this] {
        std::unique_lock<std::mutex> lock(mutex_);
        do {
            const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
            char buf[64];
            std::snprintf(buf, sizeof buf, "%.1f s elapsed", elapsed);
            draw(buf);
        } while (!stop_cv_.wait_for(lock, kRedrawInterval, [this] { return stop_; }));
    });
}

void Progress::finish() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
        if (shown_) {
            std::fprintf(stderr, "\r\033[K");
            std::fflush(stderr);
            shown_ = false;
        }
    }
    stop_cv_.notify_all();
    if (ticker_.joinable()) ticker_.join();
}

}  // namespace qwen3tts::cli
