// A read-only view of one tensor: its name (the Hugging Face name for checkpoint weights),
// dtype, shape (PyTorch order) and a pointer to its bytes (into a memory-mapped checkpoint, or
// aligned copies). Views never own their bytes; whatever they came from must outlive them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/dtype.hpp"

namespace qwen3tts {

struct TensorView {
    std::string name;
    DType dtype = DType::f32;
    std::vector<int64_t> shape;
    const void* data = nullptr;

    // Element and byte counts; Error(format) naming the tensor when the shape has a negative
    // dimension or its size overflows (a loaded tensor was checked against its file already).
    int64_t numel() const;
    int64_t dim(int i) const { return shape.at(size_t(i)); }
    size_t nbytes() const;
    std::string shape_str() const;

    // Element i widened to float (f32/f16/bf16 tensors).
    float at_f32(int64_t i) const;
    // Elements [first, first + count) widened to float into out, the dtype looked at once (an
    // embedding row: at_f32 per value costs a call and a switch each).
    void to_f32(int64_t first, int64_t count, float* out) const;
    // All elements widened to float: for small tensors (norm weights, biases) only.
    std::vector<float> to_f32() const;
};

std::string shape_to_string(const std::vector<int64_t>& shape);

}  // namespace qwen3tts
