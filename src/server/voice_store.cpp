#include "server/voice_store.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>

namespace qwen3tts::server {

namespace {

constexpr const char* kExt = ".voice";

StoredVoice describe(const std::string& id, const Voice& v, const struct stat& st) {
    StoredVoice s;
    s.id = id;
    s.in_context = v.in_context();
    s.ref_text = v.ref_text();
    s.ref_frames = v.ref_frames();
    s.created_at = int64_t(st.st_mtime);
    s.bytes = uint64_t(st.st_size);
    return s;
}

// A new voice written under a private name in the store's directory (".<id>.voice.tmp-N": not a
// voice name, so list() skips it), removed when this goes. Created with O_EXCL and mode 0666
// minus the umask, as any new file.
class StagedFile {
  public:
    StagedFile(const std::string& dir, const std::string& id) {
        static std::atomic<unsigned> counter{0};
        const std::string stem =
            dir + "/." + id + kExt + ".tmp-" + std::to_string(::getpid()) + "-";
        for (int attempt = 0; attempt < 100; ++attempt) {
            path_ = stem + std::to_string(counter.fetch_add(1));
            fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
            if (fd_ >= 0) return;
            if (errno != EEXIST) break;  // a replica with our pid (another host) left one
        }
        throw Error(ErrorCode::io, "cannot create a file in the voices directory " + dir + ": " +
                                       std::strerror(errno));
    }
    ~StagedFile() {
        if (fd_ >= 0) ::close(fd_);
        ::unlink(path_.c_str());
    }
    StagedFile(const StagedFile&) = delete;
    StagedFile& operator=(const StagedFile&) = delete;

    const std::string& path() const { return path_; }
    void write(const std::string& bytes) const {
        size_t done = 0;
        while (done < bytes.size()) {
            const ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0)
                throw Error(ErrorCode::io, "cannot write " + path_ + ": " + std::strerror(errno));
            done += size_t(n);
        }
        if (::fsync(fd_) != 0)
            throw Error(ErrorCode::io, "cannot write " + path_ + ": " + std::strerror(errno));
    }

  private:
    std::string path_;
    int fd_ = -1;
};

// Gives a complete staged file its final name only if that name is free. link(2) is atomic and
// fails with EEXIST when the name exists, so of two requests creating the same id at once (in
// this server or in another replica sharing the directory) exactly one wins; rename(2) would
// let the later one replace the earlier one's voice, both answered 201.
bool publish(const std::string& staged, const std::string& path) {
    if (::link(staged.c_str(), path.c_str()) == 0) return true;
    if (errno == EEXIST) return false;
    throw Error(ErrorCode::io, "cannot store the voice as " + path + ": " + std::strerror(errno));
}

}  // namespace

VoiceStore::VoiceStore(std::string dir) : dir_(std::move(dir)) {
    while (dir_.size() > 1 && dir_.back() == '/') dir_.pop_back();
    if (::mkdir(dir_.c_str(), 0777) != 0 && errno != EEXIST)
        throw Error(ErrorCode::io,
                    "cannot create the voices directory " + dir_ + ": " + std::strerror(errno));
    struct stat st {};
    if (::stat(dir_.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
        throw Error(ErrorCode::io, "the voices directory " + dir_ + " is not a directory");
}

bool VoiceStore::valid_id(const std::string& id) {
    if (id.empty() || id.size() > 64) return false;
    return std::all_of(id.begin(), id.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '_' || c == '-';
    });
}

std::string VoiceStore::path_of(const std::string& id) const {
    if (!valid_id(id))
        throw Error(ErrorCode::invalid_argument,
                    "voice id '" + id + "' is not 1-64 characters of A-Z a-z 0-9 _ -");
    return dir_ + "/" + id + kExt;
}

std::vector<StoredVoice> VoiceStore::list() const {
    std::vector<StoredVoice> out;
    DIR* d = ::opendir(dir_.c_str());
    if (!d) return out;
    const size_t ext = std::strlen(kExt);
    while (const dirent* e = ::readdir(d)) {
        const std::string name = e->d_name;
        if (name.size() <= ext || name.compare(name.size() - ext, ext, kExt) != 0) continue;
        const std::string id = name.substr(0, name.size() - ext);
        if (!valid_id(id)) continue;
        if (auto v = find(id)) out.push_back(std::move(*v));
    }
    ::closedir(d);
    std::sort(out.begin(), out.end(),
              [](const StoredVoice& a, const StoredVoice& b) { return a.id < b.id; });
    return out;
}

std::optional<StoredVoice> VoiceStore::find(const std::string& id) const {
    struct stat st {};
    const std::optional<Voice> voice = load_regular(id, st);
    if (!voice) return std::nullopt;
    return describe(id, *voice, st);
}

std::optional<Voice> VoiceStore::find_voice(const std::string& id) const {
    struct stat st {};
    return load_regular(id, st);
}

std::optional<Voice> VoiceStore::load_regular(const std::string& id, struct stat& st) const {
    if (!valid_id(id)) return std::nullopt;
    const std::string path = path_of(id);
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
    try {
        return Voice::load(path);
    } catch (const Error&) {
        return std::nullopt;  // a damaged file is not offered as a voice
    }
}

bool VoiceStore::add(const std::string& id, const Voice& voice) {
    const std::string path = path_of(id);
    if (::access(path.c_str(), F_OK) == 0) return false;
    const StagedFile staged(dir_, id);
    voice.save(staged.path());
    return publish(staged.path(), path);
}

bool VoiceStore::add_file(const std::string& id, const std::string& bytes) {
    const std::string path = path_of(id);
    if (::access(path.c_str(), F_OK) == 0) return false;
    const StagedFile staged(dir_, id);
    staged.write(bytes);
    Voice::load(staged.path());  // throws on a bad file; the staged copy is then removed
    return publish(staged.path(), path);
}

bool VoiceStore::remove(const std::string& id) {
    return ::unlink(path_of(id).c_str()) == 0;
}

}  // namespace qwen3tts::server
