// An output file named by the user, written so that a reader never sees a partial file under
// the final name, and so that what the name points at is treated as the user meant:
//
//   * "-", /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: the inherited descriptor,
//     written directly (a regular file there is written from where its offset stands, and
//     can seek unless it was opened for appending).
//   * a symlink: resolved (hop by hop, a dangling link included); its target is replaced and
//     the link stays a link.
//   * an existing character device, FIFO or socket: written straight through, never replaced
//     (`--out /dev/null` must not turn /dev/null into a regular file).
//   * otherwise: written under a short temporary name in the same directory
//     ("<name>.qwen3tts-XXXXXX", the name cut so that it fits NAME_MAX) and renamed over the
//     target on commit(); a replaced file keeps its permission bits (and its owner where we
//     may set it), a new one gets 0666 minus the umask. Destroyed without commit(), the
//     temporary is removed.
//
// Live temporaries are also listed in a process-wide registry that remove_temporary_files()
// empties from a signal handler, so Ctrl-C or SIGTERM leaves no temporary behind. The library
// installs no handlers: the program decides (see tools/cli/main.cpp).
//
// Writes are buffered; flush() hands them to the OS. Not thread-safe: one writer per file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "qwen3tts/export.h"

namespace qwen3tts {

class AtomicFile {
  public:
    // Throws Error(io) naming `path` when it cannot be opened (missing directory, permission,
    // a directory in the way, a symlink loop).
    explicit AtomicFile(const std::string& path);
    ~AtomicFile();
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;

    void write(const void* data, size_t n);
    void flush();
    // A replaced file, or an inherited descriptor of a regular file, can seek (offsets are
    // relative to where the output started); devices, FIFOs and sockets cannot.
    bool seekable() const { return seekable_; }
    void seek(uint64_t offset);
    uint64_t tell() const { return pos_; }
    uint64_t size() const { return size_; }
    // Completes the output: the temporary is renamed over the target (nothing to do when
    // written straight through).
    void commit();
    const std::string& path() const { return path_; }
    // The temporary file name, "" when the output is written straight through.
    const std::string& temp_path() const { return tmp_path_; }

  private:
    void write_out(const char* data, size_t n);
    void drop_temporary();

    std::string path_;      // as given ("stdout" for "-"), for messages
    std::string target_;    // symlinks resolved: what commit() replaces
    std::string tmp_path_;  // "" when written straight through
    int fd_ = -1;           // ours (a duplicate for an inherited descriptor)
    int slot_ = -1;         // of tmp_path_ in the signal-cleanup registry
    bool seekable_ = false;
    uint64_t base_ = 0;  // offset of the start of the output in an inherited descriptor
    uint64_t pos_ = 0;
    uint64_t size_ = 0;
    std::vector<char> buf_;
};

// Removes every temporary file of an AtomicFile that is still being written, in this
// process. Async-signal-safe (only atomics and unlink(2)): meant to be called from the
// program's own SIGINT/SIGTERM/SIGHUP handler before it re-raises the signal. Part of the public
// API (qwen3tts.hpp), hence exported.
QWEN3TTS_API void remove_temporary_files() noexcept;

}  // namespace qwen3tts
