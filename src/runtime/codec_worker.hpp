// A thread that decodes one codec packet at a time beside the generation (FrameAudio's
// overlap): with quantized weights a frame's generation is bound by memory reads, which one
// core does nearly as fast as two, while the codec is bound by arithmetic, so generation on one
// core and the codec on the other can beat both on both cores, one after the other.
#pragma once

#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

#include "model/codec_decoder.hpp"

namespace qwen3tts {

class CodecWorker {
  public:
    CodecWorker();
    ~CodecWorker();  // waits for the packet in flight (its error is dropped) and ends the thread
    CodecWorker(const CodecWorker&) = delete;
    CodecWorker& operator=(const CodecWorker&) = delete;

    // Starts `stream`.decode_frames(codes, frames, out) on the worker; the caller must not touch
    // the stream or the buffers until wait() returns. Nothing may be in flight.
    void start(CodecStream& stream, const int64_t* codes, int64_t frames, float* out);
    // Waits for the packet in flight and returns how long its decode took (ms); rethrows its
    // error. Nothing in flight: returns 0 at once.
    double wait();
    bool busy() const { return in_flight_; }

  private:
    void run();

    std::mutex mutex_;
    std::condition_variable wake_, done_;
    CodecStream* stream_ = nullptr;
    const int64_t* codes_ = nullptr;
    int64_t frames_ = 0;
    float* out_ = nullptr;
    bool job_ = false, stop_ = false;  // a packet to decode or decoding; the thread to end
    bool in_flight_ = false;           // the caller's view: started and not yet waited for
    double ms_ = 0;
    std::exception_ptr error_;
    std::thread thread_;
};

}  // namespace qwen3tts
