// Progress of a pull on first use, one line per file through the library log sink (the CLI's
// `pull` draws its own bar).
#include <cstdio>

#include "core/log.hpp"
#include "hub/hub_pull.hpp"

namespace qwen3tts {

namespace {

std::string mb(uint64_t n) {
    char buf[32];
    if (n >= 1000000000ull)
        std::snprintf(buf, sizeof buf, "%.2f GB", double(n) / 1e9);
    else if (n >= 1000000)
        std::snprintf(buf, sizeof buf, "%.1f MB", double(n) / 1e6);
    else if (n >= 1000)
        std::snprintf(buf, sizeof buf, "%.1f kB", double(n) / 1e3);
    else
        std::snprintf(buf, sizeof buf, "%u B", static_cast<unsigned>(n));
    return buf;
}

std::string counter(const PullProgress& p) {
    return "[" + std::to_string(p.index) + "/" + std::to_string(p.n_files) + "]";
}

}  // namespace

PullProgressFn log_progress() {
    return [](const PullProgress& p) {
        using E = PullProgress::Event;
        if (p.event == E::file_start)
            log_info("downloading " + p.repo_id + "/" + p.file + " (" + mb(p.total) + ") " +
                     counter(p));
        else if (p.event == E::finished)
            log_info(p.repo_id + ": " + std::to_string(p.n_files) + " files in the cache, " +
                     mb(p.all_total));
    };
}

}  // namespace qwen3tts
