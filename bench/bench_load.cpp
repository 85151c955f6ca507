// Load time of a checkpoint with a quant setting: wall time and CPU time (user + system, all
// threads) of TtsModel::load, and the peak RSS of the process.
//   bench_load <model dir> [quant] [reps]   one line per repetition.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "api/option_parsing.hpp"
#include "model/tts_model.hpp"

using namespace qwen3tts;

namespace {

double cpu_seconds() {
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    return double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           1e-6 * double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

double peak_rss_mb() {
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    return double(ru.ru_maxrss) / 1024.0;
}

}  // namespace

int main(int argc, char** argv) try {
    if (argc < 2) {
        std::fprintf(stderr, "usage: bench_load <model dir> [quant] [reps]\n");
        return 2;
    }
    const std::string quant = argc > 2 ? argv[2] : "bf16";
    const int reps = argc > 3 ? std::atoi(argv[3]) : 1;
    for (int r = 0; r < reps; ++r) {
        const double c0 = cpu_seconds();
        const auto t0 = std::chrono::steady_clock::now();
        auto model = TtsModel::load(argv[1], PretokenizerRegex::qwen2, LoadMode::mmap,
                                    parse_quant_plan(quant));
        const double wall =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::printf("%s load %.3f s wall, %.3f s cpu, peak RSS %.0f MB\n", quant.c_str(), wall,
                    cpu_seconds() - c0, peak_rss_mb());
    }
    return 0;
} catch (const std::exception& e) {
    std::fprintf(stderr, "bench_load: %s\n", e.what());
    return 1;
}
