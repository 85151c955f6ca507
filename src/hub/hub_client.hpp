// The Hugging Face hub's HTTP protocol as huggingface_hub speaks it:
//   GET  {endpoint}/api/models/{repo}/revision/{rev}?blobs=true
//        -> {"sha": commit, "siblings": [{"rfilename", "size", "blobId", "lfs": {"sha256"}}]}
//   HEAD {endpoint}/{repo}/resolve/{commit}/{file}     -> X-Repo-Commit, X-Linked-Etag/ETag,
//        X-Linked-Size/Content-Length, and for LFS files a redirect to a CDN (not followed)
//   GET  the file's location, following redirects, with Range to resume.
// The token (HF_TOKEN, else the token file) goes as "Authorization: Bearer" to the endpoint's
// own origin only, never to a CDN host it redirects to. Only http and https URLs are
// requested or followed (a redirect to file://, ftp://, ... is an Error naming it).
// Every download is checked: its size always, its content against the sha256 (the LFS etag,
// or the listing's lfs.sha256) or the git blob sha1 (a 40-digit etag, or the listing's blobId)
// when the hub gives one; an etag that is neither (some mirrors) still names the blob.
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
    bool quiet = false;     // informational messages (resuming, waiting) are not logged

    static HubConfig from_env();
};

// $HF_HOME, else $XDG_CACHE_HOME/huggingface, else ~/.cache/huggingface.
std::string hf_home_dir();
// True when HF_HUB_OFFLINE is 1/ON/YES/TRUE.
bool hf_hub_offline();

struct RepoFile {
    std::string name;      // repo-relative
    int64_t size = -1;     // bytes, -1 when the listing does not say
    std::string sha256;    // content sha256 of an LFS file, "" when not given
    std::string git_sha1;  // git blob sha1 of a file stored in git, "" when not given
};

struct RepoInfo {
    std::string commit;           // the revision resolved to a commit sha
    std::vector<RepoFile> files;  // every file of the revision, sorted by name
};

RepoInfo fetch_repo_info(const HubConfig& cfg, const std::string& repo_id,
                         const std::string& revision);

struct FileMeta {
    std::string file;      // repo-relative name
    std::string commit;    // X-Repo-Commit
    std::string etag;      // blob name: sha256 for LFS files, git sha1 otherwise (or opaque)
    uint64_t size = 0;     // bytes
    std::string url;       // where to GET it (the CDN location for LFS files)
    std::string sha256;    // expected content sha256, "" when the hub gives none
    std::string git_sha1;  // expected git blob sha1, "" when the hub gives none
};

// The HEAD of `file`, checked against what the listing said about it (sizes and digests must
// agree, or Error(format) names both).
FileMeta fetch_file_meta(const HubConfig& cfg, const std::string& repo_id,
                         const std::string& commit, const RepoFile& file);

// Throws Error(invalid_argument) unless `repo_id` is "Org/Name" with hub-valid names and
// `revision` a branch, tag or commit name that stays inside refs/ ("refs/pr/1" is fine).
void check_repo_ref(const std::string& repo_id, const std::string& revision);

// Makes blobs/<etag> exist for `meta`: under the blob's lock, downloads into
// blobs/<etag>.incomplete (resuming from its size), checks size and digest, renames it into
// place; a download that fails the digest is deleted. Returns false when the blob was already
// there (nothing fetched).
using ByteProgressFn = std::function<void(uint64_t done, uint64_t total)>;
bool fetch_blob(const HubConfig& cfg, const std::string& repo_id, const FileMeta& meta,
                const ByteProgressFn& on_bytes);

// "1.8 GB", "3.2 MB", "812 B": byte counts in messages and progress lines.
std::string human_bytes(uint64_t n);

}  // namespace qwen3tts
