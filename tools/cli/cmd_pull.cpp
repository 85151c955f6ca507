// qwen3tts pull Org/Name[@revision] [--include GLOB]... [--quiet]
// Downloads a model revision from the Hugging Face hub into the shared cache (the layout
// huggingface_hub uses) and prints the snapshot directory on stdout.
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "core/log.hpp"
#include "weights/hub_pull.hpp"

namespace {

void pull_usage(std::FILE* out) {
    std::fprintf(out,
                 "usage: qwen3tts pull Org/Name[@revision] [--include GLOB]... [--quiet]\n"
                 "  Downloads all files of the revision (default: main) into the Hugging Face\n"
                 "  cache and prints the snapshot directory.\n"
                 "  --include GLOB  only files matching GLOB (repeatable; '*' matches '/')\n"
                 "  --quiet         no progress output\n"
                 "  environment: HF_ENDPOINT, HF_TOKEN, HF_HOME, HF_HUB_CACHE, HF_HUB_OFFLINE\n");
}

}  // namespace

namespace qwen3tts::cli {

int cmd_pull(int argc, char** argv) {
    std::string spec;
    bool quiet = false;
    qwen3tts::PullOptions options;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--quiet" || a == "-q") {
            quiet = true;
        } else if (a == "--include" && i + 1 < argc) {
            options.include.push_back(argv[++i]);
        } else if (a.rfind("--include=", 0) == 0) {
            options.include.push_back(a.substr(10));
        } else if (a == "--help" || a == "-h") {
            pull_usage(stdout);
            return 0;
        } else if (!a.empty() && a[0] != '-' && spec.empty()) {
            spec = a;
        } else {
            std::fprintf(stderr, "qwen3tts pull: unexpected argument '%s'\n", a.c_str());
            pull_usage(stderr);
            return 2;
        }
    }
    if (spec.empty()) {
        pull_usage(stderr);
        return 2;
    }
    if (quiet) {
        qwen3tts::set_log_sink([](qwen3tts::LogLevel level, const std::string& m) {
            if (level == qwen3tts::LogLevel::warning || level == qwen3tts::LogLevel::error)
                std::fprintf(stderr, "qwen3tts: %s\n", m.c_str());
        });
    } else {
        options.on_progress = qwen3tts::stream_progress(stderr);
    }
    try {
        const qwen3tts::PullResult r = qwen3tts::pull_model(spec, options);
        if (r.offline && !quiet)
            std::fprintf(stderr, "HF_HUB_OFFLINE=1: using the cached snapshot\n");
        std::printf("%s\n", r.snapshot_dir.c_str());
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "qwen3tts pull: error: %s\n", e.what());
        return 1;
    }
}

}  // namespace qwen3tts::cli
