#include "audio/byte_sink.hpp"

#include "core/atomic_file.hpp"
#include "core/error.hpp"

namespace qwen3tts {
namespace {

// A file, stdout or device through core/atomic_file.hpp: a regular file is written under a
// temporary name and renamed on commit (and can seek, so headers get their real sizes);
// stdout, devices and FIFOs are written straight through, seekable only when stdout is a
// regular file. Every flush() hands the bytes to the OS, so a player reading stdout or a
// FIFO starts after the first chunk.
class FileSink final : public ByteSink {
  public:
    explicit FileSink(const std::string& path) : file_(path) {}
    void write(const void* data, size_t n) override { file_.write(data, n); }
    void flush() override { file_.flush(); }
    bool seekable() const override { return file_.seekable(); }
    void seek(uint64_t offset) override { file_.seek(offset); }
    uint64_t tell() const override { return file_.tell(); }
    uint64_t size() const override { return file_.size(); }
    void commit() override { file_.commit(); }
    const std::string& name() const override { return file_.path(); }

  private:
    AtomicFile file_;
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
    return std::make_unique<FileSink>(path);
}

std::unique_ptr<ByteSink> open_callback_sink(ByteCallback callback) {
    return std::make_unique<CallbackSink>(std::move(callback));
}

}  // namespace qwen3tts
