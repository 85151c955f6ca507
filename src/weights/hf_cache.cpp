#include "weights/hf_cache.hpp"

#include <sys/stat.h>

namespace qwen3tts {

std::string repo_folder_name(const std::string& repo_id) {
    std::string name = "models";
    size_t start = 0;
    while (true) {
        const auto slash = repo_id.find('/', start);
        name += "--" + repo_id.substr(start, slash - start);
        if (slash == std::string::npos) break;
        start = slash + 1;
    }
    return name;
}

std::string repo_cache_dir(const std::string& cache_dir, const std::string& repo_id) {
    return cache_dir + "/" + repo_folder_name(repo_id);
}

std::string blob_path(const std::string& cache_dir, const std::string& repo_id,
                      const std::string& etag) {
    return repo_cache_dir(cache_dir, repo_id) + "/blobs/" + etag;
}

std::string blob_lock_path(const std::string& cache_dir, const std::string& repo_id,
                           const std::string& etag) {
    return cache_dir + "/.locks/" + repo_folder_name(repo_id) + "/" + etag + ".lock";
}

std::string snapshot_dir(const std::string& cache_dir, const std::string& repo_id,
                         const std::string& commit) {
    return repo_cache_dir(cache_dir, repo_id) + "/snapshots/" + commit;
}

bool is_commit_hash(const std::string& s) {
    if (s.size() != 40) return false;
    for (char c : s)
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    return true;
}

int64_t file_size_or_neg(const std::string& path) {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return -1;
    return static_cast<int64_t>(st.st_size);
}

}  // namespace qwen3tts
