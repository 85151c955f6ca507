#include "hub/hub_client.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "core/error.hpp"
#include "core/log.hpp"
#include "core/text_file.hpp"
#include "hub/hub_cache.hpp"
#include "hub/hub_digest.hpp"
#include "hub/hub_http.hpp"
#include "hub/hub_lock.hpp"
#include "weights/hf_cache.hpp"
#include "weights/model_dir.hpp"

namespace qwen3tts {

namespace {

constexpr int kMaxRedirects = 10;
constexpr int kMaxAttempts = 5;         // per blob download, resuming each time
constexpr long kMetadataTimeoutS = 30;  // api and HEAD requests

std::string env(const char* name) {
    const char* v = std::getenv(name);
    return v ? std::string(v) : std::string();
}

std::string first_line(std::string s, size_t max_len = 200) {
    const auto nl = s.find_first_of("\r\n");
    if (nl != std::string::npos) s.resize(nl);
    if (s.size() > max_len) s = s.substr(0, max_len) + "...";
    return s;
}

// What a request was for, to word its error.
struct Context {
    std::string repo_id;
    std::string revision;
    std::string file;  // "" for the repo listing
};

std::string unreachable_message(const HubConfig& cfg, const HttpResponse& r) {
    return "cannot reach the Hugging Face hub at " + cfg.endpoint + " (" + r.curl_error +
           "); check the network connection (or HF_ENDPOINT), or pass --model with a local "
           "model folder";
}

[[noreturn]] void throw_http_error(const HubConfig& cfg, const HttpResponse& r, const Context& c) {
    if (r.status == 0) {
        if (r.unreachable()) throw Error(ErrorCode::io, unreachable_message(cfg, r));
        throw Error(ErrorCode::io, "network error talking to " + cfg.endpoint + " (" +
                                       r.curl_error + "); run the command again");
    }
    const std::string code = r.header("x-error-code");
    std::string detail = r.header("x-error-message");
    if (detail.empty() && r.body.size() < 300 && r.body.find('<') == std::string::npos)
        detail = r.body;
    detail = first_line(detail);
    const std::string http = "HTTP " + std::to_string(r.status);
    const std::string where = c.repo_id + "@" + c.revision;
    if (r.status == 401 || r.status == 403) {
        const std::string token_hint =
            cfg.token.empty()
                ? "set HF_TOKEN (or log in with `huggingface-cli login`) to a token of an "
                  "account with access"
                : "the token sent (from HF_TOKEN or " + hf_home_dir() +
                      "/token) was rejected or lacks access; set HF_TOKEN to a valid token";
        if (code == "GatedRepo")
            throw Error(ErrorCode::io, c.repo_id + " is a gated model (" + http +
                                           "): accept its conditions on " + cfg.endpoint + "/" +
                                           c.repo_id + ", then " + token_hint);
        if (code == "RepoNotFound")
            throw Error(ErrorCode::invalid_argument,
                        "repository '" + c.repo_id + "' not found on " + cfg.endpoint + " (" +
                            http + "); check the name, or if it is private or gated, " +
                            token_hint);
        throw Error(ErrorCode::io, "access to " + c.repo_id + " denied (" + http +
                                       (detail.empty() ? "" : ": " + detail) +
                                       "): the repo is private or gated or the token is "
                                       "invalid; " +
                                       token_hint);
    }
    if (r.status == 404) {
        if (code == "RevisionNotFound")
            throw Error(ErrorCode::invalid_argument, "revision '" + c.revision + "' not found in " +
                                                         c.repo_id + " on " + cfg.endpoint + " (" +
                                                         http + ")");
        if (code == "EntryNotFound" || (code.empty() && !c.file.empty()))
            throw Error(ErrorCode::invalid_argument, "file '" + c.file + "' not found in " + where +
                                                         " on " + cfg.endpoint + " (" + http + ")");
        throw Error(ErrorCode::invalid_argument,
                    "repository '" + c.repo_id + "' not found on " + cfg.endpoint + " (" + http +
                        "); check the name (Org/Name) and the revision");
    }
    if (r.status == 429)
        throw Error(ErrorCode::io, "the hub at " + cfg.endpoint + " is rate-limiting requests (" +
                                       http + "); wait a minute and run the command again");
    throw Error(ErrorCode::io, "the hub at " + cfg.endpoint + " answered " + http + " for " +
                                   where + (c.file.empty() ? "" : "/" + c.file) +
                                   (detail.empty() ? "" : " (" + detail + ")"));
}

enum class Follow { relative_only, all };

bool is_http_url(const std::string& url) {
    std::string scheme = url.substr(0, url.find("://"));
    std::transform(scheme.begin(), scheme.end(), scheme.begin(),
                   [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    return url.find("://") != std::string::npos && (scheme == "http" || scheme == "https");
}

// One hub request with our headers, following redirects ourselves: the token goes only to
// the endpoint's origin. With Follow::relative_only a redirect to another origin is
// returned as is (the HEAD of an LFS file: its headers describe the file, the Location is
// the CDN), while same-origin redirects (a renamed repo) are followed.
HttpResponse hub_request(const HubConfig& cfg, HttpRequest req, Follow follow,
                         const std::vector<std::string>& extra_headers = {}) {
    const std::string endpoint_origin = url_origin(cfg.endpoint);
    std::string url = req.url;
    if (!is_http_url(url))
        throw Error(ErrorCode::invalid_argument, "refusing to request " + url +
                                                     ": only http and https URLs are used "
                                                     "(check HF_ENDPOINT)");
    for (int hop = 0; hop <= kMaxRedirects; ++hop) {
        req.url = url;
        req.headers = {"User-Agent: qwen3tts/0.1; hf_hub-compatible", "Accept-Encoding: identity"};
        for (const auto& h : extra_headers) req.headers.push_back(h);
        if (!cfg.token.empty() && url_origin(url) == endpoint_origin)
            req.headers.push_back("Authorization: Bearer " + cfg.token);
        HttpResponse r = http_perform(req);
        const bool is_3xx = r.curl_code == 0 && r.status >= 300 && r.status < 400;
        const std::string location = r.header("location");
        // A redirect must stay on http(s): never file://, ftp://, gopher://, ...
        if (is_3xx && ((!r.redirect_url.empty() && !is_http_url(r.redirect_url)) ||
                       (location.find("://") != std::string::npos && !is_http_url(location))))
            throw Error(ErrorCode::io, "refusing the redirect from " + url + " to " +
                                           first_line(location) +
                                           ": only http and https URLs are followed");
        const bool redirect = is_3xx && !r.redirect_url.empty();
        if (!redirect) return r;
        if (follow == Follow::relative_only && location.find("://") != std::string::npos) return r;
        url = r.redirect_url;
    }
    throw Error(ErrorCode::io,
                "more than " + std::to_string(kMaxRedirects) + " redirects starting at " + req.url);
}

std::string normalize_etag(std::string etag) {
    if (etag.rfind("W/", 0) == 0) etag = etag.substr(2);
    if (etag.size() >= 2 && etag.front() == '"' && etag.back() == '"')
        etag = etag.substr(1, etag.size() - 2);
    return etag;
}

// A repo file name must stay inside the snapshot directory.
bool safe_relative_path(const std::string& f) {
    if (f.empty() || f[0] == '/' || f.find('\\') != std::string::npos ||
        f.find('\0') != std::string::npos)
        return false;
    size_t start = 0;
    while (true) {
        const auto slash = f.find('/', start);
        const std::string part = f.substr(start, slash - start);
        if (part.empty() || part == "." || part == "..") return false;
        if (slash == std::string::npos) return true;
        start = slash + 1;
    }
}

bool all_digits(const std::string& s) {
    return !s.empty() && s.size() <= 19 &&
           std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// A hub repo or organisation name: letters, digits, '-', '_', '.', without ".." or "--"
// (the cache folder models--Org--Name would not map back).
bool valid_repo_part(const std::string& s) {
    return !s.empty() && s.size() <= 96 && s.find("..") == std::string::npos &&
           s.find("--") == std::string::npos && s.front() != '.' && s.front() != '-' &&
           std::all_of(s.begin(), s.end(), [](unsigned char c) {
               return std::isalnum(c) || c == '-' || c == '_' || c == '.';
           });
}

void note(const HubConfig& cfg, const std::string& message) {
    if (!cfg.quiet) log_info(message);
}

[[noreturn]] void throw_write_error(const HubConfig& cfg, const std::string& path, int e) {
    if (e == ENOSPC || e == EDQUOT)
        throw Error(ErrorCode::io, "disk full while writing " + path + " (" + std::strerror(e) +
                                       "): free space in " + cfg.cache_dir +
                                       " or point HF_HUB_CACHE at a disk with room; the "
                                       "partial download is kept and resumes next time");
    throw Error(ErrorCode::io, "cannot write " + path + ": " + std::strerror(e));
}

bool write_all(int fd, const char* data, size_t n) {
    while (n > 0) {
        const ssize_t w = ::write(fd, data, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        data += w;
        n -= static_cast<size_t>(w);
    }
    return true;
}

// Start offset of a "Content-Range: bytes a-b/c" header, or -1.
int64_t content_range_start(const std::string& v) {
    if (v.rfind("bytes ", 0) != 0) return -1;
    char* end = nullptr;
    const long long a = std::strtoll(v.c_str() + 6, &end, 10);
    return end && *end == '-' ? a : -1;
}

}  // namespace

std::string human_bytes(uint64_t n) {
    char buf[32];
    if (n >= 1000000000ull)
        std::snprintf(buf, sizeof buf, "%.1f GB", double(n) / 1e9);
    else if (n >= 1000000)
        std::snprintf(buf, sizeof buf, "%.1f MB", double(n) / 1e6);
    else if (n >= 1000)
        std::snprintf(buf, sizeof buf, "%.1f kB", double(n) / 1e3);
    else
        std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(n));
    return buf;
}

std::string hf_home_dir() {
    if (!env("HF_HOME").empty()) return env("HF_HOME");
    if (!env("XDG_CACHE_HOME").empty()) return env("XDG_CACHE_HOME") + "/huggingface";
    return env("HOME") + "/.cache/huggingface";
}

bool hf_hub_offline() {
    std::string v = env("HF_HUB_OFFLINE");
    std::transform(v.begin(), v.end(), v.begin(),
                   [](unsigned char ch) { return static_cast<char>(std::toupper(ch)); });
    return v == "1" || v == "ON" || v == "YES" || v == "TRUE";
}

HubConfig HubConfig::from_env() {
    HubConfig cfg;
    cfg.endpoint = env("HF_ENDPOINT").empty() ? "https://huggingface.co" : env("HF_ENDPOINT");
    while (!cfg.endpoint.empty() && cfg.endpoint.back() == '/') cfg.endpoint.pop_back();
    cfg.token = env("HF_TOKEN");
    if (cfg.token.empty()) cfg.token = env("HUGGING_FACE_HUB_TOKEN");  // the older name
    if (cfg.token.empty()) {
        const std::string path =
            env("HF_TOKEN_PATH").empty() ? hf_home_dir() + "/token" : env("HF_TOKEN_PATH");
        cfg.token = read_first_word(path);
    }
    cfg.cache_dir = hf_hub_cache_dir();
    cfg.offline = hf_hub_offline();
    return cfg;
}

RepoInfo fetch_repo_info(const HubConfig& cfg, const std::string& repo_id,
                         const std::string& revision) {
    HttpRequest req;
    req.url = cfg.endpoint + "/api/models/" + url_quote(repo_id, "/") + "/revision/" +
              url_quote(revision) + "?blobs=true";
    req.timeout_s = kMetadataTimeoutS;
    const HttpResponse r = hub_request(cfg, req, Follow::relative_only);
    const Context ctx{repo_id, revision, ""};
    if (!r.ok()) throw_http_error(cfg, r, ctx);

    RepoInfo info;
    try {
        const auto j = nlohmann::json::parse(r.body);
        info.commit = j.at("sha").get<std::string>();
        for (const auto& s : j.at("siblings")) {
            RepoFile f;
            f.name = s.at("rfilename").get<std::string>();
            if (s.contains("size") && !s["size"].is_null()) f.size = s["size"].get<int64_t>();
            const bool lfs = s.contains("lfs") && s["lfs"].is_object();
            if (lfs) {
                const auto& l = s["lfs"];
                f.sha256 = l.value("sha256", std::string());
                if (l.contains("size")) f.size = l["size"].get<int64_t>();
            } else if (s.contains("blobId") && s["blobId"].is_string()) {
                f.git_sha1 = s["blobId"].get<std::string>();
            }
            if (f.size < -1) f.size = -1;
            // Digests of an unexpected form are ignored, not trusted.
            if (etag_kind(f.sha256) != EtagKind::sha256) f.sha256.clear();
            if (etag_kind(f.git_sha1) != EtagKind::git_sha1) f.git_sha1.clear();
            info.files.push_back(f);
        }
    } catch (const nlohmann::json::exception& e) {
        throw Error(ErrorCode::format, "unexpected answer from " + req.url + " (" + e.what() +
                                           "); is HF_ENDPOINT a Hugging Face hub?");
    }
    if (!is_commit_hash(info.commit))
        throw Error(ErrorCode::format, "the hub gave '" + info.commit + "' as the commit of " +
                                           repo_id + "@" + revision + ", not a commit hash");
    for (const auto& f : info.files)
        if (!safe_relative_path(f.name))
            throw Error(ErrorCode::format, "the hub lists the unsafe file name '" + f.name +
                                               "' in " + repo_id + "; refusing to download it");
    std::sort(info.files.begin(), info.files.end(),
              [](const RepoFile& a, const RepoFile& b) { return a.name < b.name; });
    return info;
}

FileMeta fetch_file_meta(const HubConfig& cfg, const std::string& repo_id,
                         const std::string& commit, const RepoFile& listed) {
    const std::string& file = listed.name;
    HttpRequest req;
    req.method = "HEAD";
    req.url = cfg.endpoint + "/" + url_quote(repo_id, "/") + "/resolve/" + url_quote(commit) + "/" +
              url_quote(file, "/");
    req.timeout_s = kMetadataTimeoutS;
    const HttpResponse r = hub_request(cfg, req, Follow::relative_only);
    const Context ctx{repo_id, commit, file};
    const bool redirect = r.curl_code == 0 && r.status >= 300 && r.status < 400;
    if (!r.ok() && !redirect) throw_http_error(cfg, r, ctx);

    FileMeta meta;
    meta.file = file;
    meta.commit = r.header("x-repo-commit");
    meta.etag = normalize_etag(r.header("x-linked-etag"));
    if (meta.etag.empty()) meta.etag = normalize_etag(r.header("etag"));
    std::string size = r.header("x-linked-size");
    if (size.empty()) size = r.header("content-length");
    meta.url = redirect && !r.redirect_url.empty() ? r.redirect_url : req.url;
    const std::string what = repo_id + "/" + file;
    if (meta.commit.empty() || meta.etag.empty() || size.empty())
        throw Error(ErrorCode::format, "the server at " + cfg.endpoint +
                                           " sent no X-Repo-Commit, ETag or size for " + what +
                                           "; is HF_ENDPOINT a Hugging Face hub?");
    if (!safe_relative_path(meta.etag) || meta.etag.find('/') != std::string::npos)
        throw Error(ErrorCode::format,
                    "the hub sent the unusable etag '" + first_line(meta.etag) + "' for " + what);
    if (!all_digits(size))
        throw Error(ErrorCode::format,
                    "the hub sent the size '" + first_line(size) + "' for " + what);
    meta.size = std::strtoull(size.c_str(), nullptr, 10);

    // What to check the content against: the etag when it is a digest, else the listing's.
    const EtagKind kind = etag_kind(meta.etag);
    if (kind == EtagKind::sha256) meta.sha256 = meta.etag;
    if (kind == EtagKind::git_sha1) meta.git_sha1 = meta.etag;
    auto agree = [&](std::string& have, const std::string& listed_value, const char* name) {
        if (listed_value.empty()) return;
        if (!have.empty() && have != listed_value)
            throw Error(ErrorCode::format, "the hub gives two " + std::string(name) + " for " +
                                               what + ": " + listed_value + " in the file list, " +
                                               have + " in its headers; refusing to download it");
        have = listed_value;
    };
    agree(meta.sha256, listed.sha256, "sha256 digests");
    if (meta.sha256.empty()) agree(meta.git_sha1, listed.git_sha1, "git blob ids");
    if (listed.size >= 0 && uint64_t(listed.size) != meta.size)
        throw Error(ErrorCode::format,
                    "the hub gives two sizes for " + what + ": " + std::to_string(listed.size) +
                        " bytes in the file "
                        "list, " +
                        std::to_string(meta.size) + " in its headers; refusing to download it");
    return meta;
}

void check_repo_ref(const std::string& repo_id, const std::string& revision) {
    const auto slash = repo_id.find('/');
    if (slash == std::string::npos || !valid_repo_part(repo_id.substr(0, slash)) ||
        !valid_repo_part(repo_id.substr(slash + 1)))
        throw Error(ErrorCode::invalid_argument,
                    "'" + repo_id +
                        "' is not a Hugging Face repo id (Org/Name: letters, digits, "
                        "'-', '_', '.')");
    if (!safe_relative_path(revision) || revision.size() > 256)
        throw Error(ErrorCode::invalid_argument, "'" + revision + "' is not a revision name");
}

bool fetch_blob(const HubConfig& cfg, const std::string& repo_id, const FileMeta& meta,
                const ByteProgressFn& on_bytes) {
    const std::string blob = blob_path(cfg.cache_dir, repo_id, meta.etag);
    if (file_size_or_neg(blob) >= 0) return false;
    make_dirs(repo_cache_dir(cfg.cache_dir, repo_id) + "/blobs");
    FileLock lock(blob_lock_path(cfg.cache_dir, repo_id, meta.etag), [&] {
        note(cfg, "waiting for another process downloading " + repo_id + "/" + meta.file);
    });
    if (file_size_or_neg(blob) >= 0) return false;  // the other process finished it

    const std::string incomplete = blob + ".incomplete";
    // The content is checked against the sha256 when the hub gives one, else the git sha1.
    const bool use_sha256 = !meta.sha256.empty();
    const bool checked = use_sha256 || !meta.git_sha1.empty();
    const std::string& expected = use_sha256 ? meta.sha256 : meta.git_sha1;
    if (!checked)
        log_warning("the hub gives no checksum for " + repo_id + "/" + meta.file + " (etag '" +
                    meta.etag + "'): only its size is checked");
    Digest digest(use_sha256 ? Digest::Kind::sha256 : Digest::Kind::sha1);
    auto restart_digest = [&] {
        digest.reset();
        if (!use_sha256) digest_git_header(digest, meta.size);
    };

    std::string last_error;
    bool complete = false;
    for (int attempt = 1; attempt <= kMaxAttempts && !complete; ++attempt) {
        const int fd = ::open(incomplete.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0) throw_write_error(cfg, incomplete, errno);
        uint64_t offset = static_cast<uint64_t>(std::max<off_t>(0, ::lseek(fd, 0, SEEK_END)));
        if (offset > meta.size) {  // not ours to trust: start over
            if (::ftruncate(fd, 0) != 0) throw_write_error(cfg, incomplete, errno);
            offset = 0;
        }
        // The digest covers the kept prefix too, read back once.
        restart_digest();
        if (offset > 0 && checked) {
            ::lseek(fd, 0, SEEK_SET);
            std::vector<char> buf(1 << 20);
            uint64_t left = offset;
            while (left > 0) {
                const ssize_t n = ::read(fd, buf.data(), std::min<uint64_t>(left, buf.size()));
                if (n <= 0) throw Error(ErrorCode::io, "cannot read back " + incomplete);
                digest.update(buf.data(), static_cast<size_t>(n));
                left -= static_cast<uint64_t>(n);
            }
            ::lseek(fd, 0, SEEK_END);
        }
        if (offset == meta.size) {
            ::close(fd);
            complete = true;
            break;
        }
        if (offset > 0 && attempt == 1)
            note(cfg, "resuming " + repo_id + "/" + meta.file + " at " + human_bytes(offset) +
                          " of " + human_bytes(meta.size));

        uint64_t done = offset;
        int write_errno = 0;
        std::string range_error;
        bool first_chunk = true;
        HttpRequest req;
        req.url = meta.url;
        req.on_body = [&](long status, const char* data, size_t n) {
            if (first_chunk) {
                first_chunk = false;
                if (status == 200 && done > 0) {  // the server ignored Range: start over
                    if (::ftruncate(fd, 0) != 0 || ::lseek(fd, 0, SEEK_SET) != 0) {
                        write_errno = errno;
                        return false;
                    }
                    done = 0;
                    restart_digest();
                }
            }
            if (done + n > meta.size) {
                range_error = "the server sent more than the " + std::to_string(meta.size) +
                              " bytes announced";
                return false;
            }
            if (!write_all(fd, data, n)) {
                write_errno = errno;
                return false;
            }
            if (checked) digest.update(data, n);
            done += n;
            if (on_bytes) on_bytes(done, meta.size);
            return true;
        };
        std::vector<std::string> extra;
        if (offset > 0) extra.push_back("Range: bytes=" + std::to_string(offset) + "-");
        HttpResponse r;
        try {
            r = hub_request(cfg, req, Follow::all, extra);
        } catch (...) {  // a refused redirect: keep nothing that was not downloaded
            ::close(fd);
            if (file_size_or_neg(incomplete) == 0) ::unlink(incomplete.c_str());
            throw;
        }
        ::close(fd);

        if (write_errno != 0) throw_write_error(cfg, incomplete, write_errno);
        if (!range_error.empty()) {
            ::unlink(incomplete.c_str());
            throw Error(ErrorCode::io,
                        "download of " + repo_id + "/" + meta.file + " failed: " + range_error);
        }
        if (r.status == 206 &&
            content_range_start(r.header("content-range")) != static_cast<int64_t>(offset)) {
            ::unlink(incomplete.c_str());  // a range we did not ask for: start over
            last_error = "unexpected Content-Range '" + r.header("content-range") + "'";
            continue;
        }
        if (r.status == 416) {  // the kept part no longer fits the file: start over
            ::unlink(incomplete.c_str());
            last_error = "HTTP 416";
            continue;
        }
        if (r.curl_code == 0 && r.status >= 200 && r.status < 300) {
            if (done == meta.size) {
                complete = true;
                break;
            }
            last_error =
                "connection closed after " + human_bytes(done) + " of " + human_bytes(meta.size);
        } else if (r.status >= 400 && r.curl_code == 0) {
            const bool transient = r.status >= 500 || r.status == 429;
            if (!transient || attempt == kMaxAttempts)
                throw_http_error(cfg, r, Context{repo_id, meta.commit, meta.file});
            last_error = "HTTP " + std::to_string(r.status);
        } else {
            if (r.unreachable() && done == offset && attempt == kMaxAttempts)
                throw Error(ErrorCode::io, unreachable_message(cfg, r));
            last_error = r.curl_error.empty() ? "HTTP " + std::to_string(r.status) : r.curl_error;
        }
        if (attempt < kMaxAttempts) {
            note(cfg, "download of " + repo_id + "/" + meta.file + " interrupted at " +
                          human_bytes(done) + " of " + human_bytes(meta.size) + " (" + last_error +
                          "); resuming (attempt " + std::to_string(attempt + 1) + " of " +
                          std::to_string(kMaxAttempts) + ")");
            std::this_thread::sleep_for(std::chrono::milliseconds(250 * attempt));
        }
    }
    if (!complete) {
        const int64_t kept = std::max<int64_t>(0, file_size_or_neg(incomplete));
        throw Error(ErrorCode::io,
                    "download of " + repo_id + "/" + meta.file + " was interrupted " +
                        std::to_string(kMaxAttempts) + " times (" + last_error + "); " +
                        human_bytes(static_cast<uint64_t>(kept)) + " of " + human_bytes(meta.size) +
                        " are kept: run the command again to resume");
    }

    if (checked) {
        const std::string got = digest.hex();
        if (got != expected) {
            ::unlink(incomplete.c_str());
            throw Error(ErrorCode::io, "checksum mismatch for " + repo_id + "/" + meta.file +
                                           ": expected " + (use_sha256 ? "sha256 " : "git sha1 ") +
                                           expected + ", got " + got +
                                           "; the corrupted download was deleted, run the "
                                           "command again");
        }
    }
    if (::rename(incomplete.c_str(), blob.c_str()) != 0)
        throw Error(ErrorCode::io,
                    "cannot rename " + incomplete + " to " + blob + ": " + std::strerror(errno));
    return true;
}

}  // namespace qwen3tts
