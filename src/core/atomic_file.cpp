#include "core/atomic_file.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/error.hpp"

namespace qwen3tts {

AtomicFile::AtomicFile(const std::string& path) : path_(path) {
    if (path == "-") {
        is_stdout_ = true;
        file_ = stdout;
        return;
    }
    tmp_path_ = path + ".tmp." + std::to_string(::getpid());
    file_ = std::fopen(tmp_path_.c_str(), "wb");
    if (!file_)
        throw Error(ErrorCode::io, path + ": cannot open for writing (" +
                                       std::strerror(errno) + ")");
}

AtomicFile::~AtomicFile() {
    if (file_ && !is_stdout_) {
        std::fclose(file_);
        std::remove(tmp_path_.c_str());
    }
}

void AtomicFile::write(const void* data, size_t n) {
    if (n && std::fwrite(data, 1, n, file_) != n)
        throw Error(ErrorCode::io, path_ + ": write failed (" + std::strerror(errno) + ")");
}

void AtomicFile::flush() {
    if (std::fflush(file_) != 0)
        throw Error(ErrorCode::io, path_ + ": write failed (" + std::strerror(errno) + ")");
}

void AtomicFile::commit() {
    if (is_stdout_) {
        flush();
        return;
    }
    QWEN3TTS_ASSERT(file_ != nullptr);
    const bool ok = std::fflush(file_) == 0 && std::fclose(file_) == 0;
    file_ = nullptr;
    if (!ok || std::rename(tmp_path_.c_str(), path_.c_str()) != 0) {
        const std::string why = std::strerror(errno);
        std::remove(tmp_path_.c_str());
        throw Error(ErrorCode::io, path_ + ": cannot write (" + why + ")");
    }
}

}  // namespace qwen3tts
