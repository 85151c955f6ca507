// The Hugging Face hub's HTTP protocol as huggingface_hub speaks it:
//   GET  {endpoint}/api/models/{repo}/revision/{rev}   -> {"sha": commit, "siblings": [...]}
//   HEAD {endpoint}/{repo}/resolve/{commit}/{file}     -> X-Repo-Commit, X-Linked-Etag/ETag,
//        X-Linked-Size/Content-Length, and for LFS files a redirect to a CDN (not followed)
//   GET  the file's location, following redirects, with Range to resume.
// The token (HF_TOKEN, else the token file) goes as "Authorization: Bearer" to the endpoint's
// own origin only, never to a CDN host it redirects to.
// Errors are one-line Error(io) / Error(invalid_argument) messages that say what to do.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace qwen3tts {

struct HubConfig {
    std::string endpoint;   // HF_ENDPOINT, default https://huggingface.co (no trailing '/')
    std::string token;      // HF_TOKEN, else $HF_TOKEN_PATH or $HF_HOME/token; "" = anonymous
    std::string cache_dir;  // hf_hub_cache_dir()
    bool offline = false;   // HF_HUB_OFFLINE=1: never touch the network

    static HubConfig from_env();
};

// $HF_HOME, else $XDG_CACHE_HOME/huggingface, else ~/.cache/huggingface.
std::string hf_home_dir();
// True when HF_HUB_OFFLINE is 1/ON/YES/TRUE.
bool hf_hub_offline();

struct RepoInfo {
    std::string commit;              // the revision resolved to a commit sha
    std::vector<std::string> files;  // every file of the revision, repo-relative
};

RepoInfo fetch_repo_info(const HubConfig& cfg, const std::string& repo_id,
                         const std::string& revision);

struct FileMeta {
    std::string file;    // repo-relative name
    std::string commit;  // X-Repo-Commit
    std::string etag;    // blob name: sha256 for LFS files, git sha1 otherwise
    uint64_t size = 0;   // bytes
    std::string url;     // where to GET it (the CDN location for LFS files)
};

FileMeta fetch_file_meta(const HubConfig& cfg, const std::string& repo_id,
                         const std::string& commit, const std::string& file);

// Makes blobs/<etag> exist for `meta`: under the blob's lock, downloads into
// blobs/<etag>.incomplete (resuming from its size), checks the digest against the etag,
// renames it into place. Returns false when the blob was already there (nothing fetched).
using ByteProgressFn = std::function<void(uint64_t done, uint64_t total)>;
bool fetch_blob(const HubConfig& cfg, const std::string& repo_id, const FileMeta& meta,
                const ByteProgressFn& on_bytes);

}  // namespace qwen3tts
