#include "hub/hub_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "core/error.hpp"

namespace qwen3tts {

void make_dirs(const std::string& dir) {
    if (dir.empty()) return;
    size_t pos = 0;
    while (pos != std::string::npos) {
        pos = dir.find('/', pos + 1);
        const std::string part = dir.substr(0, pos);
        if (::mkdir(part.c_str(), 0755) != 0 && errno != EEXIST)
            throw Error(ErrorCode::io,
                        "cannot create directory " + part + ": " + std::strerror(errno));
    }
}

FileLock::FileLock(const std::string& path, const std::function<void()>& on_wait, int max_wait_s) {
    const auto slash = path.rfind('/');
    if (slash != std::string::npos) make_dirs(path.substr(0, slash));
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0)
        throw Error(ErrorCode::io, "cannot open lock file " + path + ": " + std::strerror(errno));
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(max_wait_s);
    bool told = false;
    while (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
        if (errno != EWOULDBLOCK && errno != EINTR) {
            const int e = errno;
            ::close(fd_);
            throw Error(ErrorCode::io, "cannot lock " + path + ": " + std::strerror(e));
        }
        if (!told && on_wait) on_wait();
        told = true;
        if (std::chrono::steady_clock::now() > deadline) {
            ::close(fd_);
            throw Error(ErrorCode::io, "gave up after " + std::to_string(max_wait_s) +
                                           " s waiting for the lock " + path +
                                           " held by another download");
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
}

FileLock::~FileLock() {
    if (fd_ >= 0) {
        ::flock(fd_, LOCK_UN);
        ::close(fd_);
    }
}

}  // namespace qwen3tts
