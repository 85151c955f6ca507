// qwen3tts pull Org/Name[@revision] [--include GLOB]... [--quiet]
// Downloads a model revision from the Hugging Face hub into the shared cache (the layout
// huggingface_hub uses) and prints the snapshot directory on stdout.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "qwen3tts/qwen3tts.hpp"

namespace {

using Progress = qwen3tts::hub::PullProgress;
using ProgressFn = std::function<void(const Progress&)>;
using Clock = std::chrono::steady_clock;

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

std::string counter(const Progress& p) {
    return "[" + std::to_string(p.index) + "/" + std::to_string(p.n_files) + "]";
}

struct StreamState {
    std::FILE* out = nullptr;
    bool tty = false;
    Clock::time_point file_start;
    Clock::time_point last_draw;
    uint64_t start_bytes = 0;
    int last_quarter = 0;
};

void draw_bar(StreamState& s, const Progress& p, bool final) {
    constexpr int kWidth = 28;
    const double frac = p.total ? double(p.bytes) / double(p.total) : 1.0;
    const int filled = static_cast<int>(frac * kWidth);
    std::string bar(static_cast<size_t>(filled), '#');
    bar.append(static_cast<size_t>(kWidth - filled), '-');
    const double secs = std::chrono::duration<double>(Clock::now() - s.file_start).count();
    const double rate = secs > 0 ? double(p.bytes - s.start_bytes) / secs / 1e6 : 0.0;
    std::string name = p.file;
    if (name.size() > 32) name = "..." + name.substr(name.size() - 29);
    std::fprintf(s.out, "\r%s %-32s [%s] %3d%% %9s / %-9s %6.1f MB/s\033[K%s", counter(p).c_str(),
                 name.c_str(), bar.c_str(), static_cast<int>(frac * 100), mb(p.bytes).c_str(),
                 mb(p.total).c_str(), rate, final ? "\n" : "");
    std::fflush(s.out);
}

// Progress on `out`: a bar redrawn in place on a terminal, plain lines elsewhere (logs, CI).
ProgressFn stream_progress(std::FILE* out) {
    auto s = std::make_shared<StreamState>();
    s->out = out;
    s->tty = ::isatty(::fileno(out)) != 0;
    return [s](const Progress& p) {
        using E = Progress::Event;
        switch (p.event) {
            case E::file_start:
                s->file_start = s->last_draw = Clock::now();
                s->start_bytes = p.bytes;
                s->last_quarter = -1;  // set by the first bytes (a resume starts midway)
                if (s->tty)
                    draw_bar(*s, p, false);
                else
                    std::fprintf(s->out, "%s downloading %s (%s)\n", counter(p).c_str(),
                                 p.file.c_str(), mb(p.total).c_str());
                break;
            case E::file_bytes: {
                if (s->tty) {
                    if (Clock::now() - s->last_draw > std::chrono::milliseconds(100)) {
                        s->last_draw = Clock::now();
                        draw_bar(*s, p, false);
                    }
                    break;
                }
                // Plain output: a line at each quarter of files large enough to take a while.
                const int quarter = p.total ? static_cast<int>(4 * p.bytes / p.total) : 4;
                if (s->last_quarter < 0) s->last_quarter = quarter;
                if (p.total >= (8u << 20) && quarter > s->last_quarter && quarter < 4) {
                    std::fprintf(s->out, "%s %s: %d%% (%s of %s)\n", counter(p).c_str(),
                                 p.file.c_str(), quarter * 25, mb(p.bytes).c_str(),
                                 mb(p.total).c_str());
                }
                s->last_quarter = std::max(s->last_quarter, quarter);
                break;
            }
            case E::file_done:
                if (s->tty)
                    draw_bar(*s, p, true);
                else
                    std::fprintf(s->out, "%s %s: done\n", counter(p).c_str(), p.file.c_str());
                break;
            case E::file_cached:
                std::fprintf(s->out, "%s %s: already in the cache\n", counter(p).c_str(),
                             p.file.c_str());
                break;
            case E::finished:
                std::fprintf(s->out, "%s: %zu files, %s\n", p.repo_id.c_str(), p.n_files,
                             mb(p.all_total).c_str());
                break;
        }
        std::fflush(s->out);
    };
}

}  // namespace

namespace qwen3tts::cli {

int cmd_pull(const Args& args) {
    const bool quiet = args.flag("quiet");
    qwen3tts::hub::PullOptions options;
    options.include = args.get_all("include");
    options.quiet = quiet;
    if (!quiet) options.on_progress = stream_progress(stderr);
    const qwen3tts::hub::PullResult r = qwen3tts::hub::pull(args.positional(), options);
    if (r.offline && !quiet) std::fprintf(stderr, "HF_HUB_OFFLINE=1: using the cached snapshot\n");
    std::printf("%s\n", r.snapshot_dir.c_str());
    return 0;
}

}  // namespace qwen3tts::cli
