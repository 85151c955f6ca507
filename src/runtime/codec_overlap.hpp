// Whether one request's codec packets are decoded beside its generation or between its frames,
// and, when that is left to measurement, which way is faster now.
#pragma once

#include <chrono>
#include <cstdint>

namespace qwen3tts {

// Whether a request's packets after its first audio are decoded beside its generation: the
// generation on the calling thread alone and the codec on a thread of its own (CodecWorker).
// The audio is the same either way.
enum class CodecOverlap {
    off,       // each packet decoded between frames, generation and codec on all the threads
    on,        // beside, from the first packet after the first audio
    adaptive,  // the way that measures faster (OverlapChoice: wall time per frame), each way
               // measured again after a while (the machine's memory bandwidth drifts)
};

// Which way the next packet is decoded under CodecOverlap::adaptive: each way is timed over two
// packets (the first after a switch not counted: it carries the other way's tail), the faster
// one kept for 8 packets, 16, 32 ... up to 64 while it stays the faster, then both are timed
// again. A Session keeps one for all its requests, so that what one request measured serves
// the next: a sentence is 10-20 packets, about what timing both ways takes.
class OverlapChoice {
  public:
    // A request begins: the time since the previous request's last packet is not counted.
    void new_request() { last_ = {}; }
    // At a packet boundary after the first audio, with the frames generated since the previous
    // one; returns whether the packet due now is decoded beside the generation.
    bool at_boundary(std::chrono::steady_clock::time_point now, int64_t frames);

  private:
    void start_timing(bool overlap, int skip);

    bool overlap_ = false;  // the way of the packets now
    bool trying_ = true;    // timing the ways (else keeping the faster)
    int skip_ = 0, counted_ = 0, keep_left_ = 0, keep_len_ = 8;
    double sum_ms_ = 0;
    int64_t sum_frames_ = 0;
    double ms_per_frame_[2] = {-1, -1};  // sequential, beside; < 0: not timed yet
    int last_best_ = -1;
    std::chrono::steady_clock::time_point last_{};
};

}  // namespace qwen3tts
