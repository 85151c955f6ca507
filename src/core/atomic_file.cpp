#include "core/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstring>
#include <thread>

#include "core/error.hpp"

namespace qwen3tts {

namespace {

// ---- Registry of live temporaries, read by remove_temporary_files() in a signal handler.
// A fixed array (no allocation, no locks); a slot's path is written only while the slot is
// `filling`, so a handler that sees `live` reads a complete path.
constexpr int kMaxLive = 64;  // more live temporaries at once are written but not listed
constexpr size_t kMaxPath = PATH_MAX;
enum SlotState : int { kFree, kFilling, kLive, kRemoving, kRemoved };

struct Slot {
    std::atomic<int> state{kFree};
    char path[kMaxPath];
};
static_assert(std::atomic<int>::is_always_lock_free, "signal handlers need lock-free atomics");
Slot g_slots[kMaxLive];

int register_temporary(const std::string& path) {
    if (path.size() >= kMaxPath) return -1;
    for (int i = 0; i < kMaxLive; ++i) {
        int expected = kFree;
        if (!g_slots[i].state.compare_exchange_strong(expected, kFilling)) continue;
        std::memcpy(g_slots[i].path, path.c_str(), path.size() + 1);
        g_slots[i].state.store(kLive, std::memory_order_release);
        return i;
    }
    return -1;
}

void unregister_temporary(int slot) {
    if (slot < 0) return;
    std::atomic<int>& state = g_slots[slot].state;
    int expected = kLive;
    if (state.compare_exchange_strong(expected, kFree)) return;
    // A handler on another thread is removing it: wait until it is done with the path.
    while (state.load() == kRemoving) std::this_thread::yield();
    state.store(kFree);
}

std::string errno_text(int e) {
    return std::strerror(e);
}

std::string dir_of(const std::string& path) {  // with the trailing '/', "" for a bare name
    const size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

// "-", /dev/stdout, /dev/stderr, /dev/fd/N and /proc/self/fd/N name an inherited descriptor.
// Their links in /proc cannot be followed as paths (a pipe's target is "pipe:[1234]").
int inherited_fd(const std::string& p) {
    if (p == "-" || p == "/dev/stdout") return STDOUT_FILENO;
    if (p == "/dev/stderr") return STDERR_FILENO;
    for (const char* prefix : {"/dev/fd/", "/proc/self/fd/"}) {
        const size_t n = std::strlen(prefix);
        if (p.size() <= n || p.size() > n + 6 || p.compare(0, n, prefix) != 0) continue;
        if (!std::all_of(p.begin() + long(n), p.end(), [](char c) { return c >= '0' && c <= '9'; }))
            continue;
        return std::stoi(p.substr(n));
    }
    return -1;
}

// A short random suffix; O_EXCL settles the rare collision.
std::string random_suffix() {
    static std::atomic<uint64_t> counter{0};
    uint64_t x = uint64_t(std::chrono::steady_clock::now().time_since_epoch().count()) ^
                 (uint64_t(::getpid()) << 32) ^ (++counter * 0x9E3779B97F4A7C15ull);
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    static const char kChars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    std::string s;
    for (int i = 0; i < 6; ++i, x /= 62) s += kChars[x % 62];
    return s;
}

// "<name>.qwen3tts-XXXXXX" in the target's directory, the name cut (at a UTF-8 character
// boundary) so that the whole fits the directory's NAME_MAX.
std::string temp_name_for(const std::string& target) {
    const std::string dir = dir_of(target);
    const std::string name = target.substr(dir.size());
    const std::string tag = ".qwen3tts-" + random_suffix();
    long name_max = ::pathconf(dir.empty() ? "." : dir.c_str(), _PC_NAME_MAX);
    if (name_max <= 0) name_max = NAME_MAX;
    size_t keep = std::min(name.size(), size_t(std::max<long>(0, name_max - long(tag.size()))));
    auto continuation_byte = [&](size_t i) {
        return (static_cast<unsigned char>(name[i]) & 0xC0) == 0x80;
    };
    while (keep > 0 && keep < name.size() && continuation_byte(keep)) --keep;
    return dir + name.substr(0, keep) + tag;
}

}  // namespace

void remove_temporary_files() noexcept {
    for (Slot& s : g_slots) {
        int expected = kLive;
        if (!s.state.compare_exchange_strong(expected, kRemoving)) continue;
        ::unlink(s.path);
        s.state.store(kRemoved);
    }
}

AtomicFile::AtomicFile(const std::string& path) : path_(path == "-" ? "stdout" : path) {
    if (path.empty()) throw Error(ErrorCode::invalid_argument, "empty output path");
    auto fail = [&](const std::string& why) -> Error {
        return Error(ErrorCode::io, path_ + ": cannot open for writing (" + why + ")");
    };

    // Follow the name to what it designates, one symlink at a time (a dangling link is
    // followed to the name it points at, which is then created).
    std::string p = path;
    struct stat st {};
    bool exists = false;
    for (int hop = 0;; ++hop) {
        if (hop > 40) throw fail("too many levels of symbolic links");
        const int fd = inherited_fd(p);
        if (fd >= 0) {
            if (fd == STDOUT_FILENO) std::fflush(stdout);  // earlier stdio output goes first
            if (fd == STDERR_FILENO) std::fflush(stderr);
            fd_ = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
            if (fd_ < 0) throw fail(errno_text(errno));
            // A regular file can have its headers patched, unless opened for appending
            // (`>> file`), where every write lands at the end.
            struct stat fst {};
            const int flags = ::fcntl(fd_, F_GETFL);
            if (::fstat(fd_, &fst) == 0 && S_ISREG(fst.st_mode) && flags >= 0 &&
                !(flags & O_APPEND)) {
                const off_t at = ::lseek(fd_, 0, SEEK_CUR);
                if (at >= 0) {
                    seekable_ = true;
                    base_ = uint64_t(at);
                }
            }
            return;
        }
        if (::lstat(p.c_str(), &st) != 0) {
            if (errno != ENOENT) throw fail(errno_text(errno));
            break;
        }
        if (!S_ISLNK(st.st_mode)) {
            exists = true;
            break;
        }
        std::vector<char> link(size_t(std::max<off_t>(st.st_size, 0)) + PATH_MAX);
        const ssize_t n = ::readlink(p.c_str(), link.data(), link.size() - 1);
        if (n <= 0) throw fail(errno_text(errno));
        const std::string to(link.data(), size_t(n));
        p = to[0] == '/' ? to : dir_of(p) + to;
    }
    target_ = p;

    if (exists && S_ISDIR(st.st_mode)) throw fail("it is a directory");
    if (exists && !S_ISREG(st.st_mode)) {
        // A device, FIFO or socket: write into it, never replace it.
        fd_ = ::open(p.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
        if (fd_ < 0) throw fail(errno_text(errno));
        return;
    }

    for (int attempt = 0; fd_ < 0; ++attempt) {
        tmp_path_ = temp_name_for(p);
        // Listed before it exists, so that no signal can come between creation and listing.
        slot_ = register_temporary(tmp_path_);
        fd_ = ::open(tmp_path_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd_ >= 0) break;
        const int e = errno;
        unregister_temporary(slot_);
        slot_ = -1;
        tmp_path_.clear();
        if (e == EEXIST && attempt < 100) continue;
        std::string why = errno_text(e);
        if (e == ENOENT) {
            const std::string dir = dir_of(p);
            struct stat dst {};
            if (!dir.empty() && ::stat(dir.c_str(), &dst) != 0)
                why = "directory " + dir + " does not exist";
        }
        throw fail(why);
    }
    // Replacing a file keeps its permission bits; a new file has 0666 minus the umask. The
    // owner is kept where we may set it (root; or our own file's group): best effort, and
    // before fchmod, which it would otherwise strip of set-id bits.
    if (exists && (st.st_uid != ::geteuid() || st.st_gid != ::getegid()))
        (void)!::fchown(fd_, st.st_uid, st.st_gid);
    if (exists && ::fchmod(fd_, st.st_mode & 07777) != 0) {
        const int e = errno;
        drop_temporary();
        throw fail("cannot copy the mode of the existing file: " + errno_text(e));
    }
    seekable_ = true;
}

AtomicFile::~AtomicFile() {
    drop_temporary();
}

void AtomicFile::drop_temporary() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    if (!tmp_path_.empty()) {
        ::unlink(tmp_path_.c_str());
        unregister_temporary(slot_);
        slot_ = -1;
        tmp_path_.clear();
    }
}

void AtomicFile::write_out(const char* data, size_t n) {
    while (n > 0) {
        const ssize_t k = ::write(fd_, data, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0)
            throw Error(ErrorCode::io, path_ + ": write failed (" + errno_text(errno) + ")");
        data += k;
        n -= size_t(k);
    }
}

void AtomicFile::write(const void* data, size_t n) {
    QWEN3TTS_ASSERT(fd_ >= 0);
    constexpr size_t kBuffer = 64 * 1024;
    const char* p = static_cast<const char*>(data);
    if (buf_.size() + n > kBuffer) flush();
    if (n >= kBuffer)
        write_out(p, n);
    else
        buf_.insert(buf_.end(), p, p + n);
    pos_ += n;
    size_ = std::max(size_, pos_);
}

void AtomicFile::flush() {
    if (buf_.empty()) return;
    QWEN3TTS_ASSERT(fd_ >= 0);
    write_out(buf_.data(), buf_.size());
    buf_.clear();
}

void AtomicFile::seek(uint64_t offset) {
    QWEN3TTS_ASSERT(seekable_);
    flush();
    if (::lseek(fd_, off_t(base_ + offset), SEEK_SET) < 0)
        throw Error(ErrorCode::io, path_ + ": seek failed (" + errno_text(errno) + ")");
    pos_ = offset;
}

void AtomicFile::commit() {
    QWEN3TTS_ASSERT(fd_ >= 0);
    try {
        flush();
        // An inherited file is left positioned after our output, not after a patched header.
        if (tmp_path_.empty() && seekable_ && ::lseek(fd_, off_t(base_ + size_), SEEK_SET) < 0)
            throw Error(ErrorCode::io, path_ + ": seek failed (" + errno_text(errno) + ")");
    } catch (...) {
        drop_temporary();
        throw;
    }
    const int rc = ::close(fd_);
    const int close_errno = errno;
    fd_ = -1;
    if (tmp_path_.empty()) {
        if (rc != 0 && close_errno != EINTR)
            throw Error(ErrorCode::io, path_ + ": cannot write (" + errno_text(close_errno) + ")");
        return;
    }
    if (rc != 0 || ::rename(tmp_path_.c_str(), target_.c_str()) != 0) {
        const std::string why = errno_text(rc != 0 ? close_errno : errno);
        drop_temporary();
        throw Error(ErrorCode::io, path_ + ": cannot write (" + why + ")");
    }
    // Renamed: a signal from here on finds no file under the temporary name.
    unregister_temporary(slot_);
    slot_ = -1;
    tmp_path_.clear();
}

}  // namespace qwen3tts
