#include "runtime/codec_overlap.hpp"

#include <algorithm>

namespace qwen3tts {

bool OverlapChoice::at_boundary(std::chrono::steady_clock::time_point now, int64_t frames) {
    if (last_ != std::chrono::steady_clock::time_point{}) {
        if (skip_ > 0) {
            --skip_;
        } else {
            sum_ms_ += std::chrono::duration<double, std::milli>(now - last_).count();
            sum_frames_ += frames;
            ++counted_;
        }
    }
    last_ = now;
    if (trying_ && counted_ >= 2) {
        ms_per_frame_[overlap_] = sum_ms_ / double(sum_frames_);
        if (ms_per_frame_[!overlap_] < 0) {
            start_timing(!overlap_, 1);
        } else {
            const int best = ms_per_frame_[1] < ms_per_frame_[0] ? 1 : 0;
            keep_len_ = best == last_best_ ? std::min(2 * keep_len_, 64) : 8;
            last_best_ = best;
            trying_ = false;
            keep_left_ = keep_len_;
            overlap_ = best == 1;
        }
    } else if (!trying_ && --keep_left_ <= 0) {
        ms_per_frame_[0] = ms_per_frame_[1] = -1;
        start_timing(overlap_, 0);
    }
    return overlap_;
}

void OverlapChoice::start_timing(bool overlap, int skip) {
    trying_ = true;
    overlap_ = overlap;
    skip_ = skip;
    counted_ = 0;
    sum_ms_ = 0;
    sum_frames_ = 0;
}

}  // namespace qwen3tts
