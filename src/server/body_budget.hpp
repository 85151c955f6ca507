// The server-wide budget of request-body bytes held in memory at once (--max-body-memory-mb):
// each request reserves its body's size when its headers arrive (its Content-Length, or the
// per-request limit for a chunked body, whose size is not known in advance) and gives it back
// when its handler has finished with it or the connection closes. A request that would go over
// the budget is answered 503 before its body is read, so 512 connections each sending a body of
// the largest size cannot together take 512 × that much memory.
// Thread-safe: reserved on the I/O thread, released on a handler thread.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>

namespace qwen3tts::server {

class BodyBudget {
  public:
    explicit BodyBudget(size_t limit_bytes) : limit_(limit_bytes) {}

    // Bytes reserved until destroyed.
    class Lease {
      public:
        Lease(BodyBudget& budget, size_t bytes) : budget_(budget), bytes_(bytes) {}
        ~Lease() { budget_.in_use_.fetch_sub(bytes_); }
        Lease(const Lease&) = delete;
        Lease& operator=(const Lease&) = delete;

      private:
        BodyBudget& budget_;
        size_t bytes_;
    };

    // A lease of `bytes`, or null when it does not fit beside those held now. A body of 0
    // bytes always fits.
    std::shared_ptr<Lease> reserve(size_t bytes);
    size_t limit() const { return limit_; }

  private:
    const size_t limit_;
    std::atomic<size_t> in_use_{0};
};

}  // namespace qwen3tts::server
