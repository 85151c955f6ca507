// Sizes computed from numbers read out of files. A product that overflows is an error, never a
// wrapped value: a wrapped product lets a huge shape pass the check against the file size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace qwen3tts {

// Number of elements of `shape`. Throws Error(format) "<what>: ..." naming the shape when a
// dimension is negative or the product does not fit in int64.
int64_t checked_numel(const std::vector<int64_t>& shape, const std::string& what);

// checked_numel(shape) * elem_size, with the same errors when the byte count overflows.
size_t checked_nbytes(const std::vector<int64_t>& shape, size_t elem_size, const std::string& what);

}  // namespace qwen3tts
