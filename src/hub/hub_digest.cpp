#include "hub/hub_digest.hpp"

#include <openssl/evp.h>

#include <cstdio>
#include <memory>
#include <vector>

#include "core/error.hpp"

namespace qwen3tts {

namespace {

bool all_hex(const std::string& s) {
    for (char c : s)
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    return true;
}

EVP_MD_CTX* ctx_of(void* p) {
    return static_cast<EVP_MD_CTX*>(p);
}

}  // namespace

Digest::Digest(Kind kind) : kind_(kind) {
    ctx_ = EVP_MD_CTX_new();
    QWEN3TTS_ASSERT(ctx_ != nullptr);
    reset();
}

Digest::~Digest() {
    EVP_MD_CTX_free(ctx_of(ctx_));
}

void Digest::reset() {
    const EVP_MD* md = kind_ == Kind::sha256 ? EVP_sha256() : EVP_sha1();
    QWEN3TTS_ASSERT(EVP_DigestInit_ex(ctx_of(ctx_), md, nullptr) == 1);
}

void Digest::update(const void* data, size_t n) {
    QWEN3TTS_ASSERT(EVP_DigestUpdate(ctx_of(ctx_), data, n) == 1);
}

std::string Digest::hex() {
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    QWEN3TTS_ASSERT(EVP_DigestFinal_ex(ctx_of(ctx_), md, &len) == 1);
    static const char* digits = "0123456789abcdef";
    std::string out;
    for (unsigned int i = 0; i < len; ++i) {
        out += digits[md[i] >> 4];
        out += digits[md[i] & 15];
    }
    return out;
}

EtagKind etag_kind(const std::string& etag) {
    if (etag.size() == 64 && all_hex(etag)) return EtagKind::sha256;
    if (etag.size() == 40 && all_hex(etag)) return EtagKind::git_sha1;
    return EtagKind::opaque;
}

void digest_git_header(Digest& d, uint64_t size) {
    const std::string header = "blob " + std::to_string(size);
    d.update(header.data(), header.size() + 1);  // with the terminating '\0'
}

std::string file_digest_for_etag(const std::string& path, const std::string& etag) {
    const EtagKind kind = etag_kind(etag);
    if (kind == EtagKind::opaque) return "";
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), std::fclose);
    if (!f) throw Error(ErrorCode::io, "cannot read " + path);
    Digest d(kind == EtagKind::sha256 ? Digest::Kind::sha256 : Digest::Kind::sha1);
    if (kind == EtagKind::git_sha1) {
        std::fseek(f.get(), 0, SEEK_END);
        const long size = std::ftell(f.get());
        std::fseek(f.get(), 0, SEEK_SET);
        digest_git_header(d, static_cast<uint64_t>(size));
    }
    std::vector<char> buf(1 << 20);
    size_t n;
    while ((n = std::fread(buf.data(), 1, buf.size(), f.get())) > 0) d.update(buf.data(), n);
    if (std::ferror(f.get())) throw Error(ErrorCode::io, "error reading " + path);
    return d.hex();
}

}  // namespace qwen3tts
