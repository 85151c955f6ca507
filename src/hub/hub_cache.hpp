// Writing and listing the Hugging Face hub cache (layout: weights/hf_cache.hpp): snapshot
// symlinks, refs, and the inventory `qwen3tts list` shows.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "weights/hf_cache.hpp"

namespace qwen3tts {

// Points snapshots/<commit>/<file> at blobs/<etag> with a relative symlink, replacing any
// existing entry atomically (a symlink made under a temporary name, then renamed).
void link_snapshot_file(const std::string& cache_dir, const std::string& repo_id,
                        const std::string& commit, const std::string& file,
                        const std::string& etag);

// Writes refs/<revision> = commit (atomically) unless `revision` is the commit itself.
void write_ref(const std::string& cache_dir, const std::string& repo_id,
               const std::string& revision, const std::string& commit);

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
