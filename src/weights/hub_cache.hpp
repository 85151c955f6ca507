// The Hugging Face hub cache layout, byte for byte as huggingface_hub writes it, so that
// models pulled by Python are used by qwen3tts and the other way round:
//
//   <cache>/models--Org--Name/blobs/<etag>                 file contents, named by etag
//   <cache>/models--Org--Name/blobs/<etag>.incomplete      a download in progress
//   <cache>/models--Org--Name/snapshots/<commit>/<file>    relative symlink ../../blobs/<etag>
//   <cache>/models--Org--Name/refs/<branch or tag>         the commit it points to
//   <cache>/.locks/models--Org--Name/<etag>.lock           flock while a blob downloads
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace qwen3tts {

std::string repo_folder_name(const std::string& repo_id);  // "models--Org--Name"
std::string repo_cache_dir(const std::string& cache_dir, const std::string& repo_id);
std::string blob_path(const std::string& cache_dir, const std::string& repo_id,
                      const std::string& etag);
std::string blob_lock_path(const std::string& cache_dir, const std::string& repo_id,
                           const std::string& etag);
std::string snapshot_dir(const std::string& cache_dir, const std::string& repo_id,
                         const std::string& commit);

// Points snapshots/<commit>/<file> at blobs/<etag> with a relative symlink, replacing any
// existing entry atomically (a symlink made under a temporary name, then renamed).
void link_snapshot_file(const std::string& cache_dir, const std::string& repo_id,
                        const std::string& commit, const std::string& file,
                        const std::string& etag);

// Writes refs/<revision> = commit (atomically) unless `revision` is the commit itself.
void write_ref(const std::string& cache_dir, const std::string& repo_id,
               const std::string& revision, const std::string& commit);

bool is_commit_hash(const std::string& s);  // 40 lower-case hex digits

// Size of a regular file, or -1 when it does not exist.
int64_t file_size_or_neg(const std::string& path);

struct CachedRevision {
    std::string commit;
    std::vector<std::string> refs;  // branches/tags pointing at it ("main", "refs/pr/1")
    size_t n_files = 0;             // files in the snapshot
    uint64_t size_bytes = 0;        // sum of the sizes of the files it links
};

struct CachedRepo {
    std::string repo_id;      // "Org/Name"
    std::string path;         // <cache>/models--Org--Name
    uint64_t size_bytes = 0;  // all complete blobs on disk (shared between revisions)
    size_t n_incomplete = 0;  // interrupted downloads (blobs/*.incomplete)
    std::vector<CachedRevision> revisions;
};

// All models in the cache, sorted by repo id; an absent cache directory gives an empty list.
std::vector<CachedRepo> scan_hub_cache(const std::string& cache_dir);

}  // namespace qwen3tts
