// Progress reporters for pulls: a bar redrawn in place on a terminal, plain lines elsewhere
// (logs, CI), or lines through the library log sink.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <memory>

#include "core/log.hpp"
#include "weights/hub_pull.hpp"

namespace qwen3tts {

namespace {

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

std::string counter(const PullProgress& p) {
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

void draw_bar(StreamState& s, const PullProgress& p, bool final) {
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

}  // namespace

PullProgressFn stream_progress(std::FILE* out) {
    auto s = std::make_shared<StreamState>();
    s->out = out;
    s->tty = ::isatty(::fileno(out)) != 0;
    return [s](const PullProgress& p) {
        using E = PullProgress::Event;
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
