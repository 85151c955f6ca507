// qwen3tts list: the models in the Hugging Face cache, with their revisions and sizes.
#include <cstdio>
#include <string>

#include "commands.hpp"
#include "qwen3tts/qwen3tts.hpp"

namespace {

std::string list_size(uint64_t n) {
    char buf[32];
    if (n >= 1000000000ull)
        std::snprintf(buf, sizeof buf, "%.1f GB", double(n) / 1e9);
    else
        std::snprintf(buf, sizeof buf, "%.1f MB", double(n) / 1e6);
    return buf;
}

}  // namespace

namespace qwen3tts::cli {

int cmd_list(const Args&) {
    const std::string cache = qwen3tts::hub::cache_dir();
    const auto repos = qwen3tts::hub::list_cache();
    if (repos.empty()) {
        std::printf("no models in the cache at %s\n", cache.c_str());
        return 0;
    }
    uint64_t total = 0;
    std::printf("%-40s %-16s %-12s %6s %10s\n", "MODEL", "REVISION", "COMMIT", "FILES", "SIZE");
    for (const auto& repo : repos) {
        total += repo.size_bytes;
        std::string note;
        if (repo.n_incomplete)
            note = "  (" + std::to_string(repo.n_incomplete) + " interrupted download" +
                   (repo.n_incomplete > 1 ? "s" : "") + ")";
        if (repo.revisions.empty())
            std::printf("%-40s %-16s %-12s %6s %10s%s\n", repo.repo_id.c_str(), "-", "-", "-",
                        list_size(repo.size_bytes).c_str(), note.c_str());
        for (size_t i = 0; i < repo.revisions.size(); ++i) {
            const auto& rev = repo.revisions[i];
            std::string refs;
            for (const auto& r : rev.refs) refs += (refs.empty() ? "" : ",") + r;
            if (refs.empty()) refs = "-";
            // The repo's disk size once (blobs are shared between revisions).
            std::printf("%-40s %-16s %-12s %6zu %10s%s\n", repo.repo_id.c_str(), refs.c_str(),
                        rev.commit.substr(0, 12).c_str(), rev.n_files,
                        i == 0 ? list_size(repo.size_bytes).c_str() : "",
                        i == 0 ? note.c_str() : "");
        }
    }
    std::printf("%zu model%s, %s in %s\n", repos.size(), repos.size() == 1 ? "" : "s",
                list_size(total).c_str(), cache.c_str());
    return 0;
}

}  // namespace qwen3tts::cli
