#include "server/voice_store.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/atomic_file.hpp"

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
    if (!valid_id(id)) return std::nullopt;
    const std::string path = path_of(id);
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
    try {
        return describe(id, Voice::load(path), st);
    } catch (const Error&) {
        return std::nullopt;  // a damaged file is not offered as a voice
    }
}

Voice VoiceStore::load(const std::string& id) const {
    return Voice::load(path_of(id));
}

bool VoiceStore::add(const std::string& id, const Voice& voice) {
    const std::string path = path_of(id);
    if (::access(path.c_str(), F_OK) == 0) return false;
    voice.save(path);
    return true;
}

bool VoiceStore::add_file(const std::string& id, const std::string& bytes) {
    const std::string path = path_of(id);
    if (::access(path.c_str(), F_OK) == 0) return false;
    AtomicFile f(path);
    f.write(bytes.data(), bytes.size());
    f.flush();
    Voice::load(f.temp_path());  // throws on a bad file; the temporary is then removed
    f.commit();
    return true;
}

bool VoiceStore::remove(const std::string& id) {
    return ::unlink(path_of(id).c_str()) == 0;
}

}  // namespace qwen3tts::server
