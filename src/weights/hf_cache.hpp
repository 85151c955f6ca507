// Where things are in the Hugging Face hub cache, byte for byte as huggingface_hub lays it out,
// so that models pulled by Python are used by qwen3tts and the other way round:
//
//   <cache>/models--Org--Name/blobs/<etag>                 file contents, named by etag
//   <cache>/models--Org--Name/blobs/<etag>.incomplete      a download in progress
//   <cache>/models--Org--Name/snapshots/<commit>/<file>    relative symlink ../../blobs/<etag>
//   <cache>/models--Org--Name/refs/<branch or tag>         the commit it points to
//   <cache>/.locks/models--Org--Name/<etag>.lock           flock while a blob downloads
//
// Paths only (no I/O but file_size_or_neg): model_dir reads the cache with them, the hub layer
// (src/hub) writes it.
#pragma once

#include <cstdint>
#include <string>

namespace qwen3tts {

std::string repo_folder_name(const std::string& repo_id);  // "models--Org--Name"
std::string repo_cache_dir(const std::string& cache_dir, const std::string& repo_id);
std::string blob_path(const std::string& cache_dir, const std::string& repo_id,
                      const std::string& etag);
std::string blob_lock_path(const std::string& cache_dir, const std::string& repo_id,
                           const std::string& etag);
std::string snapshot_dir(const std::string& cache_dir, const std::string& repo_id,
                         const std::string& commit);

bool is_commit_hash(const std::string& s);  // 40 lower-case hex digits

// Size of a regular file, or -1 when it does not exist.
int64_t file_size_or_neg(const std::string& path);

}  // namespace qwen3tts
