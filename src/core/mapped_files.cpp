#include "core/mapped_files.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <vector>

namespace qwen3tts::mapped_files {

namespace {

struct Mapping {
    uintptr_t begin;
    size_t size;
    int fd;
};

std::mutex mutex;
std::vector<Mapping> mappings;

}  // namespace

void add(const void* begin, size_t size, int fd) {
    const std::lock_guard<std::mutex> lock(mutex);
    mappings.push_back({reinterpret_cast<uintptr_t>(begin), size, fd});
}

void remove(const void* begin) {
    const std::lock_guard<std::mutex> lock(mutex);
    mappings.erase(std::remove_if(mappings.begin(), mappings.end(),
                                  [&](const Mapping& m) {
                                      return m.begin == reinterpret_cast<uintptr_t>(begin);
                                  }),
                   mappings.end());
}

bool read(const void* src, size_t n, void* dst) {
    const auto at = reinterpret_cast<uintptr_t>(src);
    int fd = -1;
    uintptr_t offset = 0;
    {
        const std::lock_guard<std::mutex> lock(mutex);
        for (const Mapping& m : mappings)
            if (at >= m.begin && n <= m.size && at - m.begin <= m.size - n) {
                fd = m.fd;
                offset = at - m.begin;
                break;
            }
    }
    if (fd < 0) return false;
    size_t done = 0;
    while (done < n) {
        const ssize_t got =
            ::pread(fd, static_cast<char*>(dst) + done, n - done, off_t(offset + done));
        if (got <= 0) return false;
        done += size_t(got);
    }
    return true;
}

}  // namespace qwen3tts::mapped_files
