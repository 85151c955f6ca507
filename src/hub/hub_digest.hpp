// Incremental SHA-256 / SHA-1 over OpenSSL's EVP interface, used to check downloaded blobs
// against their hub etag: the sha256 of the content for LFS files, the git blob sha1
// (sha1 of "blob <size>\0" + content) for small files stored in git.
// Thread-safety: one Digest per thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace qwen3tts {

class Digest {
  public:
    enum class Kind { sha256, sha1 };
    explicit Digest(Kind kind);
    ~Digest();
    Digest(const Digest&) = delete;
    Digest& operator=(const Digest&) = delete;

    void reset();
    void update(const void* data, size_t n);
    std::string hex();  // finishes the digest; call reset() before reuse

  private:
    Kind kind_;
    void* ctx_ = nullptr;  // EVP_MD_CTX
};

// What an etag says about the content, and how to check it.
enum class EtagKind { sha256, git_sha1, opaque };
EtagKind etag_kind(const std::string& etag);

// Checks a whole file against its etag; returns the computed hex digest ("" for an opaque
// etag, which cannot be checked). Throws Error(io) when the file cannot be read.
std::string file_digest_for_etag(const std::string& path, const std::string& etag);

// Feeds the git blob header "blob <size>\0" (for git_sha1 etags).
void digest_git_header(Digest& d, uint64_t size);

}  // namespace qwen3tts
