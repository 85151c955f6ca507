#include "nn/codec_weights.hpp"

#include <cstring>

#include "core/error.hpp"

namespace qwen3tts {

std::vector<float> load_f32(const WeightMap& weights, const std::string& name,
                            const std::vector<int64_t>& shape) {
    const TensorView& t = weights.get(name, shape);
    if (t.dtype != DType::f32 && t.dtype != DType::bf16 && t.dtype != DType::f16)
        throw Error(ErrorCode::model, "tensor " + name + ": dtype " + dtype_name(t.dtype) +
                                          " is not a float type (F32/BF16/F16)");
    std::vector<float> out;
    if (t.dtype == DType::f32) {
        out.resize(size_t(t.numel()));
        std::memcpy(out.data(), t.data, out.size() * sizeof(float));
    } else {
        out = t.to_f32();
    }
    weights.release_pages(t);
    return out;
}

backend::ConvWeights load_linear(const WeightMap& weights, const std::string& name, int out, int in,
                                 const float* bias) {
    return load_stacked_linear(weights, {name}, {out}, in, bias);
}

backend::ConvWeights load_stacked_linear(const WeightMap& weights,
                                         const std::vector<std::string>& names,
                                         const std::vector<int>& rows, int in, const float* bias) {
    std::vector<const TensorView*> parts;
    for (size_t i = 0; i < names.size(); ++i)
        parts.push_back(&weights.get_float(names[i], {rows[i], in}));
    backend::ConvWeights packed =
        backend::prepare_stacked_linear(parts.data(), int(parts.size()), in, bias);
    for (const TensorView* t : parts) weights.release_pages(*t);
    return packed;
}

}  // namespace qwen3tts
