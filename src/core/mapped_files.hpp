// Memory-mapped files whose bytes may also be read with pread. Converting a mapped tensor once
// (quantizing it at load) through pread into a small buffer costs no page-table entries: on
// this project's VMs faulting a mapping in costs ≈ 0.5 ns of CPU per byte (4 KiB pages),
// pread ≈ 0.14 ns (docs/quantization.md). Thread-safe.
#pragma once

#include <cstddef>

namespace qwen3tts::mapped_files {

// Registers the read-only mapping [begin, begin + size) of the open file `fd` (offset 0); the
// caller keeps fd open until remove(begin).
void add(const void* begin, size_t size, int fd);
void remove(const void* begin);

// Copies the n bytes at src to dst with pread when [src, src + n) lies in a registered
// mapping; false otherwise (and on a read error), then the caller reads src itself.
bool read(const void* src, size_t n, void* dst);

}  // namespace qwen3tts::mapped_files
