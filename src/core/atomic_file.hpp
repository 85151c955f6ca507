// A file written under a temporary name and renamed into place on commit(), so that a reader
// never sees a partial file under the final name. Destroyed without commit(), it removes the
// temporary. Path "-" writes to stdout directly (nothing to rename).
#pragma once

#include <cstdio>
#include <string>

namespace qwen3tts {

class AtomicFile {
public:
    explicit AtomicFile(const std::string& path);
    ~AtomicFile();
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;

    void write(const void* data, size_t n);
    void flush();
    void commit();
    const std::string& path() const { return path_; }

private:
    std::string path_;
    std::string tmp_path_;
    std::FILE* file_ = nullptr;
    bool is_stdout_ = false;
};

}  // namespace qwen3tts
