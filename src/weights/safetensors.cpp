#include "weights/safetensors.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

#include "core/checked_size.hpp"
#include "core/error.hpp"
#include "core/mapped_files.hpp"
#include "core/text_file.hpp"

namespace qwen3tts {

namespace {

DType parse_dtype(const std::string& s, const std::string& where) {
    if (s == "F32") return DType::f32;
    if (s == "F16") return DType::f16;
    if (s == "BF16") return DType::bf16;
    if (s == "I64") return DType::i64;
    if (s == "I32") return DType::i32;
    if (s == "U8") return DType::u8;
    if (s == "BOOL") return DType::boolean;
    throw Error(ErrorCode::format, where + ": unsupported dtype '" + s + "'");
}

// A JSON array of non-negative integers (shape, data_offsets); anything else is an Error
// naming the tensor and the field.
std::vector<int64_t> unsigned_array(const nlohmann::json& v, const char* field,
                                    const std::string& where) {
    const auto it = v.find(field);
    if (it == v.end() || !it->is_array())
        throw Error(ErrorCode::format, where + ": " + field + " is missing or not an array");
    std::vector<int64_t> out;
    for (const auto& x : *it) {
        if (!x.is_number_integer() || (!x.is_number_unsigned() && x.get<int64_t>() < 0))
            throw Error(ErrorCode::format, where + ": " + field + " holds " + x.dump() +
                                               ", not a non-negative integer");
        if (x.is_number_unsigned() && x.get<uint64_t>() > uint64_t(INT64_MAX))
            throw Error(ErrorCode::format,
                        where + ": " + field + " value " + x.dump() + " is too large");
        out.push_back(x.get<int64_t>());
    }
    return out;
}

bool is_dir(const std::string& p) {
    struct stat st;
    return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool is_file(const std::string& p) {
    struct stat st;
    return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool ends_with(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() &&
           s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// A shard named by an index must lie inside the model directory: a relative path without
// empty, "." or ".." components (an index from the internet must not reach other files).
void check_shard_name(const std::string& file, const std::string& index,
                      const std::string& tensor) {
    bool ok = !file.empty() && file[0] != '/' && file.find('\0') == std::string::npos;
    for (size_t begin = 0; ok && begin <= file.size();) {
        const size_t end = std::min(file.find('/', begin), file.size());
        const std::string part = file.substr(begin, end - begin);
        ok = !part.empty() && part != "." && part != "..";
        begin = end + 1;
    }
    if (!ok)
        throw Error(ErrorCode::format, index + ": weight_map entry " + tensor + " names shard '" +
                                           file +
                                           "', which is not a file inside the model "
                                           "directory");
}

}  // namespace

SafetensorsFile::SafetensorsFile(const std::string& path, LoadMode mode) : path_(path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw Error(ErrorCode::io, path + ": cannot open (" + std::strerror(errno) + ")");
    struct stat st;
    if (::fstat(fd, &st) != 0) {
        const std::string why = std::strerror(errno);
        ::close(fd);
        throw Error(ErrorCode::io, path + ": cannot stat (" + why + ")");
    }
    if (!S_ISREG(st.st_mode)) {
        ::close(fd);
        throw Error(ErrorCode::io, path + ": not a regular file");
    }
    size_ = size_t(st.st_size);
    if (size_ < 8) {
        ::close(fd);
        throw Error(ErrorCode::format, path + ": too short to be a safetensors file (" +
                                           std::to_string(size_) + " bytes)");
    }
    mode_ = mode;
    if (mode == LoadMode::mmap) {
        map_ = ::mmap(nullptr, size_, PROT_READ, MAP_SHARED, fd, 0);
    } else {
        map_ = ::mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (map_ != MAP_FAILED) {
            ::madvise(map_, size_, MADV_HUGEPAGE);
            size_t done = 0;
            while (done < size_) {
                const ssize_t got =
                    ::pread(fd, static_cast<char*>(map_) + done, size_ - done, off_t(done));
                if (got <= 0) {
                    const std::string why =
                        got == 0 ? "unexpected end of file" : std::strerror(errno);
                    ::munmap(map_, size_);
                    ::close(fd);
                    map_ = nullptr;
                    throw Error(ErrorCode::io, path + ": read failed (" + why + ")");
                }
                done += size_t(got);
            }
        }
    }
    if (mode == LoadMode::mmap && map_ != MAP_FAILED) {
        fd_ = fd;  // kept for pread (core/mapped_files.hpp)
        mapped_files::add(map_, size_, fd_);
    } else {
        ::close(fd);
    }
    if (map_ == MAP_FAILED) {
        map_ = nullptr;
        throw Error(ErrorCode::io, path + ": cannot map " + std::to_string(size_ >> 20) + " MiB (" +
                                       std::strerror(errno) + ")");
    }
    auto unmap = [&] {
        if (fd_ >= 0) {
            mapped_files::remove(map_);
            ::close(fd_);
            fd_ = -1;
        }
        ::munmap(map_, size_);
        map_ = nullptr;
    };
    try {
        parse_header();
    } catch (const Error&) {
        unmap();
        throw;
    } catch (const std::exception& e) {
        unmap();
        throw Error(ErrorCode::format, path + ": corrupt safetensors header (" + e.what() + ")");
    }
}

// The header is JSON: {"name": {"dtype": "BF16", "shape": [..], "data_offsets": [begin, end]},
// ..., "__metadata__": {"key": "value"}}; offsets count from the end of the header. Every
// number in it is checked against the file before a view points into the data.
void SafetensorsFile::parse_header() {
    const auto* base = static_cast<const uint8_t*>(map_);
    uint64_t header_len = 0;
    std::memcpy(&header_len, base, 8);
    if (header_len > size_ - 8 || header_len > kMaxHeaderBytes)
        throw Error(ErrorCode::format, path_ + ": corrupt safetensors header (declared length " +
                                           std::to_string(header_len) + " exceeds the file of " +
                                           std::to_string(size_) + " bytes or the limit of " +
                                           std::to_string(kMaxHeaderBytes) + ")");
    nlohmann::json header;
    try {
        header = nlohmann::json::parse(base + 8, base + 8 + header_len);
    } catch (const std::exception& e) {
        throw Error(ErrorCode::format, path_ + ": corrupt safetensors header (" + e.what() + ")");
    }
    if (!header.is_object())
        throw Error(ErrorCode::format, path_ + ": safetensors header is not a JSON object");
    const size_t data_start = 8 + size_t(header_len);
    const size_t data_size = size_ - data_start;
    for (auto it = header.begin(); it != header.end(); ++it) {
        if (it.key() == "__metadata__") {
            if (!it.value().is_object())
                throw Error(ErrorCode::format, path_ + ": __metadata__ is not a JSON object");
            for (auto m = it.value().begin(); m != it.value().end(); ++m)
                if (m.value().is_string()) metadata_[m.key()] = m.value().get<std::string>();
            continue;
        }
        const std::string where = path_ + ": tensor " + it.key();
        const auto& v = it.value();
        if (!v.is_object() || !v.contains("dtype") || !v["dtype"].is_string())
            throw Error(ErrorCode::format, where + ": no dtype string");
        TensorView t;
        t.name = it.key();
        t.dtype = parse_dtype(v["dtype"].get<std::string>(), where);
        t.shape = unsigned_array(v, "shape", where);
        const std::vector<int64_t> offsets = unsigned_array(v, "data_offsets", where);
        if (offsets.size() != 2)
            throw Error(ErrorCode::format, where + ": data_offsets must be [begin, end]");
        const auto begin = uint64_t(offsets[0]), end = uint64_t(offsets[1]);
        if (begin > end || end > data_size)
            throw Error(ErrorCode::format, where + ": data offsets [" + std::to_string(begin) +
                                               ", " + std::to_string(end) + "] lie outside the " +
                                               std::to_string(data_size) +
                                               " data bytes (truncated or corrupt file)");
        const size_t nbytes = checked_nbytes(t.shape, dtype_size(t.dtype), where);
        if (end - begin != nbytes)
            throw Error(ErrorCode::format, where + ": byte size " + std::to_string(end - begin) +
                                               " does not match shape " + t.shape_str() + " of " +
                                               dtype_name(t.dtype));
        const uint8_t* data = base + data_start + begin;
        // The kernels load elements directly: a tensor the writer left unaligned (old files
        // without header padding) is copied once into aligned memory.
        if (nbytes > 0 && reinterpret_cast<uintptr_t>(data) % dtype_size(t.dtype) != 0) {
            aligned_copies_.emplace_back(new uint8_t[nbytes]);
            std::memcpy(aligned_copies_.back().get(), data, nbytes);
            data = aligned_copies_.back().get();
        }
        t.data = data;
        tensors_.emplace(t.name, std::move(t));
    }
}

SafetensorsFile::~SafetensorsFile() {
    if (fd_ >= 0) {
        mapped_files::remove(map_);
        ::close(fd_);
    }
    if (map_) ::munmap(map_, size_);
}

WeightMap WeightMap::open(const std::string& path, const std::string& stem, LoadMode mode) {
    WeightMap w;
    std::string target = path;
    if (is_dir(path)) {
        const std::string single = path + "/" + stem + ".safetensors";
        const std::string index = single + ".index.json";
        if (is_file(single))
            target = single;
        else if (is_file(index))
            target = index;
        else
            throw Error(ErrorCode::io, path + ": no " + stem + ".safetensors or " + stem +
                                           ".safetensors.index.json in this directory");
    }
    w.source_ = target;
    if (ends_with(target, ".json")) {
        const std::string text = read_text_file(target, "weight index");
        nlohmann::json index;
        try {
            index = nlohmann::json::parse(text);
        } catch (const std::exception& e) {
            throw Error(ErrorCode::format, target + ": invalid JSON (" + e.what() + ")");
        }
        const std::string dir = target.substr(0, target.find_last_of('/') + 1);
        std::map<std::string, std::shared_ptr<SafetensorsFile>> shards;
        if (!index.contains("weight_map") || !index["weight_map"].is_object())
            throw Error(ErrorCode::format, target + ": missing field 'weight_map'");
        for (auto it = index["weight_map"].begin(); it != index["weight_map"].end(); ++it) {
            if (!it.value().is_string())
                throw Error(ErrorCode::format,
                            target + ": weight_map entry " + it.key() + " is not a file name");
            const std::string file = it.value().get<std::string>();
            check_shard_name(file, target, it.key());
            auto& shard = shards[file];
            if (!shard) {
                shard = std::make_shared<SafetensorsFile>(dir + file, mode);
                w.files_.push_back(shard);
            }
            const auto found = shard->tensors().find(it.key());
            if (found == shard->tensors().end())
                throw Error(ErrorCode::model, target + ": tensor " + it.key() +
                                                  " is listed in weight_map but missing from " +
                                                  file);
            w.tensors_.emplace(it.key(), found->second);
        }
    } else {
        auto file = std::make_shared<SafetensorsFile>(target, mode);
        w.files_.push_back(file);
        w.tensors_ = file->tensors();
    }
    return w;
}

bool WeightMap::has(const std::string& name) const {
    return tensors_.count(name) != 0;
}

const TensorView& WeightMap::get(const std::string& name, const std::vector<int64_t>& shape) const {
    const auto it = tensors_.find(name);
    if (it == tensors_.end())
        throw Error(ErrorCode::model,
                    source_ + ": missing tensor " + name +
                        (shape.empty() ? "" : " (expected shape " + shape_to_string(shape) + ")"));
    if (!shape.empty() && it->second.shape != shape)
        throw Error(ErrorCode::model, source_ + ": tensor " + name + " has shape " +
                                          it->second.shape_str() + ", expected " +
                                          shape_to_string(shape));
    used_.insert(name);
    return it->second;
}

const TensorView& WeightMap::get_float(const std::string& name,
                                       const std::vector<int64_t>& shape) const {
    const TensorView& t = get(name, shape);
    if (t.dtype != DType::f32 && t.dtype != DType::bf16 && t.dtype != DType::f16)
        throw Error(ErrorCode::model, source_ + ": tensor " + name + " has dtype " +
                                          dtype_name(t.dtype) + ", expected F32, BF16 or F16");
    return t;
}

std::vector<std::string> WeightMap::unused() const {
    std::vector<std::string> out;
    for (const auto& kv : tensors_)
        if (!used_.count(kv.first)) out.push_back(kv.first);
    return out;
}

size_t WeightMap::total_bytes() const {
    size_t n = 0;
    for (const auto& kv : tensors_) n += kv.second.nbytes();
    return n;
}

bool SafetensorsFile::is_mapped(const TensorView& t) const {
    if (mode_ != LoadMode::mmap || !map_) return false;
    const auto begin = reinterpret_cast<uintptr_t>(t.data), end = begin + t.nbytes();
    const auto map_begin = reinterpret_cast<uintptr_t>(map_), map_end = map_begin + size_;
    return begin >= map_begin && end <= map_end;  // else another file, or an aligned copy
}

void SafetensorsFile::release_pages(const TensorView& t) const {
    if (!is_mapped(t)) return;
    const auto begin = reinterpret_cast<uintptr_t>(t.data), end = begin + t.nbytes();
    const uintptr_t page = uintptr_t(::sysconf(_SC_PAGESIZE));
    const uintptr_t first = (begin + page - 1) / page * page, last = end / page * page;
    if (first < last) ::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
}

void WeightMap::release_pages(const TensorView& t) const {
    for (const auto& f : files_) f->release_pages(t);
}

bool WeightMap::is_mapped(const TensorView& t) const {
    for (const auto& f : files_)
        if (f->is_mapped(t)) return true;
    return false;
}

}  // namespace qwen3tts
