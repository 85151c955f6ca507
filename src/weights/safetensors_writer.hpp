// Writes small safetensors files (saved voices): tensors in the given order, 8-byte aligned
// header, metadata strings. Atomic: a temporary file renamed into place.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/dtype.hpp"

namespace qwen3tts {

struct TensorToWrite {
    std::string name;
    DType dtype;
    std::vector<int64_t> shape;
    const void* data;
};

void write_safetensors(const std::string& path, const std::vector<TensorToWrite>& tensors,
                       const std::map<std::string, std::string>& metadata);

}  // namespace qwen3tts
