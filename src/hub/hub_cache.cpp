#include "hub/hub_cache.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include "core/error.hpp"
#include "core/text_file.hpp"
#include "hub/hub_lock.hpp"
#include "weights/hf_cache.hpp"

namespace qwen3tts {

namespace fs = std::filesystem;

namespace {

std::string parent_of(const std::string& path) {
    const auto slash = path.rfind('/');
    return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

// A short temporary name next to `path` (a long file name plus a suffix could pass NAME_MAX).
std::string temp_next_to(const std::string& path) {
    static std::atomic<int> counter{0};
    return parent_of(path) + "/.qwen3tts-" + std::to_string(::getpid()) + "-" +
           std::to_string(++counter);
}

}  // namespace

void link_snapshot_file(const std::string& cache_dir, const std::string& repo_id,
                        const std::string& commit, const std::string& file,
                        const std::string& etag) {
    const std::string pointer = snapshot_dir(cache_dir, repo_id, commit) + "/" + file;
    // snapshots/<commit>/a/b/file -> ../../../../blobs/<etag>: one ".." per directory level
    std::string target = "../../";
    for (char c : file)
        if (c == '/') target += "../";
    target += "blobs/" + etag;

    char existing[4096];
    const ssize_t n = ::readlink(pointer.c_str(), existing, sizeof existing - 1);
    if (n >= 0 && std::string(existing, static_cast<size_t>(n)) == target) return;

    make_dirs(parent_of(pointer));
    const std::string tmp = temp_next_to(pointer);
    if (::symlink(target.c_str(), tmp.c_str()) != 0)
        throw Error(ErrorCode::io, "cannot create symlink " + tmp + ": " + std::strerror(errno));
    if (::rename(tmp.c_str(), pointer.c_str()) != 0) {
        const int e = errno;
        ::unlink(tmp.c_str());
        throw Error(ErrorCode::io, "cannot create " + pointer + ": " + std::strerror(e));
    }
}

void write_ref(const std::string& cache_dir, const std::string& repo_id,
               const std::string& revision, const std::string& commit) {
    if (revision == commit) return;
    const std::string path = repo_cache_dir(cache_dir, repo_id) + "/refs/" + revision;
    if (read_first_word(path) == commit) return;
    make_dirs(parent_of(path));
    const std::string tmp = temp_next_to(path);
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        out << commit;  // no newline, as huggingface_hub writes it
        if (!out.flush())
            throw Error(ErrorCode::io, "cannot write " + tmp + ": " + std::strerror(errno));
    }
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        const int e = errno;
        ::unlink(tmp.c_str());
        throw Error(ErrorCode::io, "cannot write " + path + ": " + std::strerror(e));
    }
}

std::vector<CachedRepo> scan_hub_cache(const std::string& cache_dir) {
    std::vector<CachedRepo> repos;
    std::error_code ec;
    if (!fs::is_directory(cache_dir, ec)) return repos;
    for (const auto& entry : fs::directory_iterator(cache_dir, ec)) {
        const std::string name = entry.path().filename().string();
        if (name.rfind("models--", 0) != 0 || !entry.is_directory(ec)) continue;
        CachedRepo repo;
        repo.path = entry.path().string();
        // models--Org--Name -> Org/Name (hub names never contain "--")
        std::string rest = name.substr(8);
        for (size_t pos; (pos = rest.find("--")) != std::string::npos;) rest.replace(pos, 2, "/");
        repo.repo_id = rest;

        for (const auto& blob : fs::directory_iterator(repo.path + "/blobs", ec)) {
            if (!blob.is_regular_file(ec)) continue;
            const std::string bname = blob.path().filename().string();
            if (bname.size() > 11 && bname.compare(bname.size() - 11, 11, ".incomplete") == 0)
                ++repo.n_incomplete;
            else
                repo.size_bytes += blob.file_size(ec);
        }

        std::map<std::string, std::vector<std::string>> refs_of;  // commit -> refs
        const fs::path refs_dir = repo.path + "/refs";
        for (auto it = fs::recursive_directory_iterator(refs_dir, ec);
             it != fs::recursive_directory_iterator(); it.increment(ec)) {
            if (ec) break;
            if (!it->is_regular_file(ec)) continue;
            const std::string commit = read_first_word(it->path().string());
            if (!commit.empty())
                refs_of[commit].push_back(fs::relative(it->path(), refs_dir, ec).string());
        }

        for (const auto& snap : fs::directory_iterator(repo.path + "/snapshots", ec)) {
            if (!snap.is_directory(ec)) continue;
            CachedRevision rev;
            rev.commit = snap.path().filename().string();
            rev.refs = refs_of[rev.commit];
            std::sort(rev.refs.begin(), rev.refs.end());
            for (auto it = fs::recursive_directory_iterator(snap.path(), ec);
                 it != fs::recursive_directory_iterator(); it.increment(ec)) {
                if (ec) break;
                if (!it->is_regular_file(ec)) continue;  // follows the symlink to the blob
                ++rev.n_files;
                rev.size_bytes += it->file_size(ec);
            }
            repo.revisions.push_back(rev);
        }
        std::sort(repo.revisions.begin(), repo.revisions.end(),
                  [](const CachedRevision& a, const CachedRevision& b) {
                      return a.refs.size() != b.refs.size() ? a.refs.size() > b.refs.size()
                                                            : a.commit < b.commit;
                  });
        repos.push_back(repo);
    }
    std::sort(repos.begin(), repos.end(),
              [](const CachedRepo& a, const CachedRepo& b) { return a.repo_id < b.repo_id; });
    return repos;
}

}  // namespace qwen3tts
