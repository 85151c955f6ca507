#include "runtime/codec_worker.hpp"

#include <chrono>
#include <utility>

#include "core/error.hpp"

namespace qwen3tts {

CodecWorker::CodecWorker() : thread_([this] { run(); }) {}

CodecWorker::~CodecWorker() {
    {
        std::unique_lock lock(mutex_);
        done_.wait(lock, [&] { return !job_; });
        stop_ = true;
    }
    wake_.notify_one();
    thread_.join();
}

void CodecWorker::start(CodecStream& stream, const int64_t* codes, int64_t frames, float* out) {
    QWEN3TTS_ASSERT(!in_flight_);
    {
        std::lock_guard lock(mutex_);
        stream_ = &stream;
        codes_ = codes;
        frames_ = frames;
        out_ = out;
        job_ = true;
        error_ = nullptr;
    }
    in_flight_ = true;
    wake_.notify_one();
}

double CodecWorker::wait() {
    if (!in_flight_) return 0;
    std::unique_lock lock(mutex_);
    done_.wait(lock, [&] { return !job_; });
    in_flight_ = false;
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
    return ms_;
}

void CodecWorker::run() {
    std::unique_lock lock(mutex_);
    for (;;) {
        wake_.wait(lock, [&] { return job_ || stop_; });
        if (!job_) return;
        lock.unlock();
        const auto t0 = std::chrono::steady_clock::now();
        std::exception_ptr error;
        try {
            stream_->decode_frames(codes_, frames_, out_);
        } catch (...) {
            error = std::current_exception();
        }
        const double ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                .count();
        lock.lock();
        ms_ = ms;
        error_ = error;
        job_ = false;
        done_.notify_one();
    }
}

}  // namespace qwen3tts
