// An exclusive advisory lock on a file (flock), the same kind huggingface_hub takes through
// the `filelock` package on the same path (<cache>/.locks/models--Org--Name/<etag>.lock),
// so that Python and qwen3tts processes pulling the same blob wait for each other. The
// kernel drops the lock when the process dies, so a crash never leaves a stale lock.
#pragma once

#include <functional>
#include <string>

namespace qwen3tts {

class FileLock {
  public:
    // Blocks until the lock is held, calling `on_wait` once if another process holds it.
    // Gives up with Error(io) after `max_wait_s` seconds.
    explicit FileLock(const std::string& path, const std::function<void()>& on_wait = {},
                      int max_wait_s = 3600);
    ~FileLock();
    FileLock(const FileLock&) = delete;
    FileLock& operator=(const FileLock&) = delete;

  private:
    int fd_ = -1;
};

// mkdir -p; throws Error(io) naming the directory.
void make_dirs(const std::string& dir);

}  // namespace qwen3tts
