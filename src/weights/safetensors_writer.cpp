#include "weights/safetensors_writer.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/atomic_file.hpp"
#include "core/checked_size.hpp"

namespace qwen3tts {

void write_safetensors(const std::string& path, const std::vector<TensorToWrite>& tensors,
                       const std::map<std::string, std::string>& metadata) {
    nlohmann::ordered_json header;
    header["__metadata__"] = metadata;
    // Widest elements first: with the 8-byte header padding every tensor then starts at a
    // multiple of its element size without holes in the data (as the reference writer does).
    std::vector<const TensorToWrite*> order;
    for (const auto& t : tensors) order.push_back(&t);
    std::stable_sort(order.begin(), order.end(), [](const auto* a, const auto* b) {
        return dtype_size(a->dtype) > dtype_size(b->dtype);
    });
    uint64_t offset = 0;
    std::vector<size_t> sizes;
    for (const auto* t : order) {
        const std::string what = path + ": tensor " + t->name;
        sizes.push_back(checked_nbytes(t->shape, dtype_size(t->dtype), what));
        header[t->name] = {{"dtype", dtype_name(t->dtype)},
                           {"shape", t->shape},
                           {"data_offsets", {offset, offset + sizes.back()}}};
        offset += sizes.back();
    }
    std::string h = header.dump();
    h.append((8 - h.size() % 8) % 8, ' ');
    const uint64_t len = h.size();
    AtomicFile out(path);
    out.write(&len, 8);
    out.write(h.data(), h.size());
    for (size_t i = 0; i < order.size(); ++i) out.write(order[i]->data, sizes[i]);
    out.commit();
}

}  // namespace qwen3tts
