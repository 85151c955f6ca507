#include "audio/byte_sink.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/error.hpp"

namespace qwen3tts {
namespace {

std::string errno_text() {
    return std::strerror(errno);
}

// A temporary file next to the final path (same directory, so rename() is atomic), written
// through stdio and renamed on commit — the core/atomic_file.hpp protocol, plus seeking.
class TempFileSink final : public ByteSink {
  public:
    explicit TempFileSink(const std::string& path)
        : path_(path), tmp_path_(path + ".tmp." + std::to_string(::getpid())) {
        struct stat st {};
        if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
            throw Error(ErrorCode::io, path + ": cannot write audio: it is a directory");
        file_ = std::fopen(tmp_path_.c_str(), "w+b");
        if (!file_) {
            const int err = errno;
            std::string why = std::strerror(err);
            if (err == ENOENT) {
                const size_t slash = path.find_last_of('/');
                const std::string dir =
                    slash == std::string::npos ? "." : path.substr(0, slash + 1);
                struct stat dir_st {};
                if (::stat(dir.c_str(), &dir_st) != 0) why = "directory " + dir + " does not exist";
            }
            throw Error(ErrorCode::io, path + ": cannot open for writing (" + why + ")");
        }
    }
    ~TempFileSink() override {
        if (file_) {
            std::fclose(file_);
            std::remove(tmp_path_.c_str());
        }
    }
    void write(const void* data, size_t n) override {
        if (n && std::fwrite(data, 1, n, file_) != n)
            throw Error(ErrorCode::io, path_ + ": write failed (" + errno_text() + ")");
        pos_ += n;
        size_ = std::max(size_, pos_);
    }
    void flush() override {
        if (std::fflush(file_) != 0)
            throw Error(ErrorCode::io, path_ + ": write failed (" + errno_text() + ")");
    }
    bool seekable() const override { return true; }
    void seek(uint64_t offset) override {
        if (::fseeko(file_, off_t(offset), SEEK_SET) != 0)
            throw Error(ErrorCode::io, path_ + ": seek failed (" + errno_text() + ")");
        pos_ = offset;
    }
    uint64_t tell() const override { return pos_; }
    uint64_t size() const override { return size_; }
    void commit() override {
        QWEN3TTS_ASSERT(file_ != nullptr);
        const bool ok = std::fflush(file_) == 0 && std::fclose(file_) == 0;
        file_ = nullptr;
        if (!ok || std::rename(tmp_path_.c_str(), path_.c_str()) != 0) {
            const std::string why = errno_text();
            std::remove(tmp_path_.c_str());
            throw Error(ErrorCode::io, path_ + ": cannot write (" + why + ")");
        }
    }
    const std::string& name() const override { return path_; }

  private:
    std::string path_;
    std::string tmp_path_;
    std::FILE* file_ = nullptr;
    uint64_t pos_ = 0;
    uint64_t size_ = 0;
};

// Standard output through write(2), unbuffered so each chunk reaches a player at once. When
// stdout is redirected to a regular file it can seek (relative to where it started), so headers
// get their real sizes; on a pipe or terminal they keep the streaming "unknown" values.
class StdoutSink final : public ByteSink {
  public:
    StdoutSink() {
        std::fflush(stdout);  // whatever the program printed through stdio goes first
        struct stat st {};
        if (::fstat(STDOUT_FILENO, &st) == 0 && S_ISREG(st.st_mode)) {
            const off_t at = ::lseek(STDOUT_FILENO, 0, SEEK_CUR);
            if (at >= 0) {
                seekable_ = true;
                base_ = uint64_t(at);
            }
        }
    }
    void write(const void* data, size_t n) override {
        const char* p = static_cast<const char*>(data);
        size_t left = n;
        while (left > 0) {
            const ssize_t k = ::write(STDOUT_FILENO, p, left);
            if (k < 0 && errno == EINTR) continue;
            if (k <= 0) throw Error(ErrorCode::io, name_ + ": write failed (" + errno_text() + ")");
            p += k;
            left -= size_t(k);
        }
        pos_ += n;
        size_ = std::max(size_, pos_);
    }
    void flush() override {}
    bool seekable() const override { return seekable_; }
    void seek(uint64_t offset) override {
        QWEN3TTS_ASSERT(seekable_);
        if (::lseek(STDOUT_FILENO, off_t(base_ + offset), SEEK_SET) < 0)
            throw Error(ErrorCode::io, name_ + ": seek failed (" + errno_text() + ")");
        pos_ = offset;
    }
    uint64_t tell() const override { return pos_; }
    uint64_t size() const override { return size_; }
    void commit() override {}
    const std::string& name() const override { return name_; }

  private:
    std::string name_ = "stdout";
    bool seekable_ = false;
    uint64_t base_ = 0;
    uint64_t pos_ = 0;
    uint64_t size_ = 0;
};

class CallbackSink final : public ByteSink {
  public:
    explicit CallbackSink(ByteCallback callback) : callback_(std::move(callback)) {
        if (!callback_)
            throw Error(ErrorCode::invalid_argument, "audio writer: empty output callback");
    }
    void write(const void* data, size_t n) override {
        if (n) callback_(data, n);
        pos_ += n;
    }
    void flush() override {}
    bool seekable() const override { return false; }
    void seek(uint64_t) override { QWEN3TTS_ASSERT(false); }
    uint64_t tell() const override { return pos_; }
    uint64_t size() const override { return pos_; }
    void commit() override {}
    const std::string& name() const override { return name_; }

  private:
    ByteCallback callback_;
    std::string name_ = "audio stream";
    uint64_t pos_ = 0;
};

}  // namespace

std::unique_ptr<ByteSink> open_path_sink(const std::string& path) {
    if (path.empty()) throw Error(ErrorCode::invalid_argument, "audio writer: empty output path");
    if (path == "-") return std::make_unique<StdoutSink>();
    return std::make_unique<TempFileSink>(path);
}

std::unique_ptr<ByteSink> open_callback_sink(ByteCallback callback) {
    return std::make_unique<CallbackSink>(std::move(callback));
}

}  // namespace qwen3tts
