#include "nn/codec_weights.hpp"

#include <cstring>

#include "core/error.hpp"
#include "weights/safetensors.hpp"

namespace qwen3tts {

std::vector<float> load_f32(const WeightMap& weights, const std::string& name,
                            const std::vector<int64_t>& shape) {
    const TensorView& t = weights.get(name, shape);
    if (t.dtype == DType::f32) {
        std::vector<float> out(size_t(t.numel()));
        std::memcpy(out.data(), t.data, out.size() * sizeof(float));
        return out;
    }
    if (t.dtype != DType::bf16 && t.dtype != DType::f16)
        throw Error(ErrorCode::model, "tensor " + name + ": dtype " + dtype_name(t.dtype) +
                                          " is not a float type (F32/BF16/F16)");
    return t.to_f32();
}

}  // namespace qwen3tts
