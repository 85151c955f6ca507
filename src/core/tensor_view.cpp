#include "core/tensor_view.hpp"

#include <cstring>

#include "core/checked_size.hpp"
#include "core/error.hpp"

namespace qwen3tts {

std::string shape_to_string(const std::vector<int64_t>& shape) {
    std::string s = "[";
    for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

std::string TensorView::shape_str() const {
    return shape_to_string(shape);
}

// The checked_* functions take the context for their error; it is built only when they throw
// (these run on every linear call).
int64_t TensorView::numel() const {
    int64_t n = 1;
    for (const int64_t d : shape)
        if (d < 0 || __builtin_mul_overflow(n, d, &n))
            return checked_numel(shape, "tensor " + name);
    return n;
}

size_t TensorView::nbytes() const {
    size_t bytes = 0;
    if (__builtin_mul_overflow(size_t(numel()), dtype_size(dtype), &bytes))
        return checked_nbytes(shape, dtype_size(dtype), "tensor " + name);
    return bytes;
}

// memcpy loads: a safetensors file need not align tensor data to the element size (UBSan).
namespace {
template <class T>
T load_at(const void* data, int64_t i) {
    T v;
    std::memcpy(&v, static_cast<const char*>(data) + size_t(i) * sizeof(T), sizeof(T));
    return v;
}
}  // namespace

float TensorView::at_f32(int64_t i) const {
    switch (dtype) {
        case DType::f32:
            return load_at<float>(data, i);
        case DType::bf16:
            return bf16_to_f32(load_at<uint16_t>(data, i));
        case DType::f16:
            return f16_to_f32(load_at<uint16_t>(data, i));
        default:
            throw Error(ErrorCode::model, "tensor " + name + " has dtype " + dtype_name(dtype) +
                                              ", expected a floating-point type");
    }
}

void TensorView::to_f32(int64_t first, int64_t count, float* out) const {
    // The callers checked the range against their own bounds (an embedding's row count); a
    // range past the tensor would read beyond its mapping.
    QWEN3TTS_ASSERT(first >= 0 && count >= 0 && count <= numel() - first);
    switch (dtype) {
        case DType::f32:
            // empty: data may be null
            if (count > 0)
                std::memcpy(out, static_cast<const char*>(data) + size_t(first) * sizeof(float),
                            size_t(count) * sizeof(float));
            return;
        case DType::bf16:
            for (int64_t i = 0; i < count; ++i)
                out[i] = bf16_to_f32(load_at<uint16_t>(data, first + i));
            return;
        default:
            for (int64_t i = 0; i < count; ++i) out[i] = at_f32(first + i);
    }
}

std::vector<float> TensorView::to_f32() const {
    std::vector<float> out(static_cast<size_t>(numel()));
    to_f32(0, int64_t(out.size()), out.data());
    return out;
}

}  // namespace qwen3tts
