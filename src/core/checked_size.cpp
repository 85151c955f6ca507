#include "core/checked_size.hpp"

#include "core/error.hpp"

namespace qwen3tts {

namespace {

std::string shape_text(const std::vector<int64_t>& shape) {
    std::string s = "[";
    for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

}  // namespace

int64_t checked_numel(const std::vector<int64_t>& shape, const std::string& what) {
    int64_t n = 1;
    for (const int64_t d : shape) {
        if (d < 0)
            throw Error(ErrorCode::format,
                        what + ": shape " + shape_text(shape) + " has a negative dimension");
        if (__builtin_mul_overflow(n, d, &n))
            throw Error(ErrorCode::format, what + ": shape " + shape_text(shape) +
                                               " has more elements than fit in 64 bits");
    }
    return n;
}

size_t checked_nbytes(const std::vector<int64_t>& shape, size_t elem_size,
                      const std::string& what) {
    size_t bytes = 0;
    if (__builtin_mul_overflow(size_t(checked_numel(shape, what)), elem_size, &bytes))
        throw Error(ErrorCode::format, what + ": shape " + shape_text(shape) + " of " +
                                           std::to_string(elem_size) +
                                           "-byte elements has more bytes than fit in 64 bits");
    return bytes;
}

}  // namespace qwen3tts
