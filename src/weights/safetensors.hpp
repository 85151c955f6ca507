// Memory-mapped safetensors checkpoints. Tensors stay in their stored dtype in the page cache;
// nothing is copied at load. A WeightMap merges one file or a sharded checkpoint
// (model.safetensors.index.json) and is the only way model code reaches weights: by Hugging
// Face name, with shape checks, and with a record of which names were used so the loader can
// report unexpected tensors.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/tensor_view.hpp"

namespace qwen3tts {

// How a checkpoint's bytes reach memory: mapped from the page cache (starts instantly, shared
// between processes), or read into private anonymous memory (transparent huge pages where
// the kernel allows), which is faster to stream on machines whose page cache is slow to read.
enum class LoadMode { mmap, copy };

class SafetensorsFile {
  public:
    explicit SafetensorsFile(const std::string& path, LoadMode mode = LoadMode::mmap);
    ~SafetensorsFile();
    SafetensorsFile(const SafetensorsFile&) = delete;
    SafetensorsFile& operator=(const SafetensorsFile&) = delete;

    const std::string& path() const { return path_; }
    const std::map<std::string, TensorView>& tensors() const { return tensors_; }
    const std::map<std::string, std::string>& metadata() const { return metadata_; }
    size_t file_size() const { return size_; }

    // Gives the memory of tensor `t`'s whole pages back (its bytes have been converted, e.g.
    // quantized, and will not be read again): a mapped file's pages leave this process's RSS
    // (they stay in the page cache). No-op for a private copy (LoadMode::copy), whose bytes
    // exist nowhere else, and for a tensor of another file. Reading `t` afterwards is still
    // valid for a mapping (the pages fault back in).
    void release_pages(const TensorView& t) const;
    // Whether `t` lies in this file's memory mapping (LoadMode::mmap).
    bool is_mapped(const TensorView& t) const;

  private:
    // Headers of real checkpoints are well under 1 MiB; the limit bounds the JSON parse.
    static constexpr uint64_t kMaxHeaderBytes = 100u << 20;
    void parse_header();

    std::string path_;
    void* map_ = nullptr;
    size_t size_ = 0;
    int fd_ = -1;  // open while mapped (LoadMode::mmap)
    LoadMode mode_ = LoadMode::mmap;
    std::map<std::string, TensorView> tensors_;
    std::map<std::string, std::string> metadata_;
    std::vector<std::unique_ptr<uint8_t[]>> aligned_copies_;  // of misaligned tensors
};

class WeightMap {
  public:
    // `path` is a .safetensors file, a .safetensors.index.json, or a directory holding
    // `<stem>.safetensors` or `<stem>.safetensors.index.json`.
    static WeightMap open(const std::string& path, const std::string& stem = "model",
                          LoadMode mode = LoadMode::mmap);

    bool has(const std::string& name) const;
    // Looks a tensor up by name; throws Error(model) naming the tensor when it is missing or
    // when `shape` (if given) differs.
    const TensorView& get(const std::string& name, const std::vector<int64_t>& shape = {}) const;
    // get() for weights that must be floating point (f32, bf16, f16).
    const TensorView& get_float(const std::string& name,
                                const std::vector<int64_t>& shape = {}) const;
    const std::map<std::string, TensorView>& all() const { return tensors_; }

    // Names present in the checkpoint but never requested through get().
    std::vector<std::string> unused() const;
    const std::string& source() const { return source_; }
    size_t total_bytes() const;
    // SafetensorsFile::release_pages on the file holding `t`.
    void release_pages(const TensorView& t) const;
    // Whether `t` is read through a memory mapping of its file (LoadMode::mmap).
    bool is_mapped(const TensorView& t) const;

  private:
    std::string source_;
    std::vector<std::shared_ptr<SafetensorsFile>> files_;
    std::map<std::string, TensorView> tensors_;
    mutable std::set<std::string> used_;
};

}  // namespace qwen3tts
