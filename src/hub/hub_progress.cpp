// Progress of a pull on first use, one line per file through the library log sink (the CLI's
// `pull` draws its own bar).
#include <cstdio>

#include "core/log.hpp"
#include "hub/hub_pull.hpp"

namespace qwen3tts {

namespace {

std::string counter(const PullProgress& p) {
    return "[" + std::to_string(p.index) + "/" + std::to_string(p.n_files) + "]";
}

}  // namespace

PullProgressFn log_progress() {
    return [](const PullProgress& p) {
        using E = PullProgress::Event;
        if (p.event == E::file_start)
            log_info("downloading " + p.repo_id + "/" + p.file + " (" + human_bytes(p.total) +
                     ") " + counter(p));
        else if (p.event == E::finished)
            log_info(p.repo_id + ": " + std::to_string(p.n_files) + " files in the cache, " +
                     human_bytes(p.all_total));
    };
}

}  // namespace qwen3tts
