#include "weights/safetensors_writer.hpp"

#include <nlohmann/json.hpp>

#include "core/atomic_file.hpp"

namespace qwen3tts {

void write_safetensors(const std::string& path, const std::vector<TensorToWrite>& tensors,
                       const std::map<std::string, std::string>& metadata) {
    nlohmann::ordered_json header;
    header["__metadata__"] = metadata;
    uint64_t offset = 0;
    for (const auto& t : tensors) {
        int64_t n = 1;
        for (auto d : t.shape) n *= d;
        const uint64_t bytes = uint64_t(n) * dtype_size(t.dtype);
        header[t.name] = {{"dtype", dtype_name(t.dtype)},
                          {"shape", t.shape},
                          {"data_offsets", {offset, offset + bytes}}};
        offset += bytes;
    }
    std::string h = header.dump();
    h.append((8 - h.size() % 8) % 8, ' ');
    const uint64_t len = h.size();
    AtomicFile out(path);
    out.write(&len, 8);
    out.write(h.data(), h.size());
    for (const auto& t : tensors) {
        int64_t n = 1;
        for (auto d : t.shape) n *= d;
        out.write(t.data, size_t(n) * dtype_size(t.dtype));
    }
    out.commit();
}

}  // namespace qwen3tts
