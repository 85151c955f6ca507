// qwen3tts command-line entry point: dispatches to one subcommand per file (cmd_*.cpp) and
// turns errors into one clear line on stderr and a non-zero exit code.
#include <signal.h>

#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

#include "commands.hpp"
#include "qwen3tts/error.hpp"
#include "qwen3tts/qwen3tts.hpp"

namespace {

// Ctrl-C, SIGTERM, SIGHUP: delete the temporaries of half-written outputs, then die of the
// same signal (SA_RESETHAND restored the default action), so the exit status says so.
extern "C" void on_terminating_signal(int sig) {
    qwen3tts::remove_temporary_files();
    ::raise(sig);  // delivered once the handler returns (the signal is blocked inside it)
}

void install_signal_handlers() {
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
        struct sigaction old {};
        // A signal ignored by whoever started us (nohup, a background job) stays ignored.
        if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
        struct sigaction sa {};
        sa.sa_handler = on_terminating_signal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESETHAND;
        ::sigaction(sig, &sa, nullptr);
    }
}

struct Command {
    const char* name;
    int (*run)(int, char**);
    const char* summary;
};

const Command kCommands[] = {
    {"speak", qwen3tts::cli::cmd_speak, "text → speech (wav, flac, ogg/opus, mp3, pcm, npy)"},
    {"decode", qwen3tts::cli::cmd_decode, "codec frames (.npy) → speech"},
    {"codes", qwen3tts::cli::cmd_codes, "text → codec frames (.npy, int64 [frames, 16])"},
    {"voice", qwen3tts::cli::cmd_voice, "reference audio → a reusable .voice file (Base models)"},
    {"encode", qwen3tts::cli::cmd_encode, "audio → codec frames (.npy)"},
    {"info", qwen3tts::cli::cmd_info, "show a model's variant, size, speakers and languages"},
    {"bench", qwen3tts::cli::cmd_bench, "measure load, prefill and per-frame time"},
    {"pull", qwen3tts::cli::cmd_pull, "download a model from the Hugging Face hub into the cache"},
    {"list", qwen3tts::cli::cmd_list, "list the models in the Hugging Face cache"},
};

void usage() {
    std::fprintf(stderr, "usage: qwen3tts <command> [options]\n\ncommands:\n");
    for (const auto& c : kCommands) std::fprintf(stderr, "  %-8s %s\n", c.name, c.summary);
}

}  // namespace

int main(int argc, char** argv) {
    install_signal_handlers();
    if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
        usage();
        return argc < 2 ? 2 : 0;
    }
    for (const auto& c : kCommands) {
        if (std::strcmp(argv[1], c.name) != 0) continue;
        try {
            return c.run(argc - 1, argv + 1);
        } catch (const qwen3tts::Error& e) {
            std::fprintf(stderr, "qwen3tts %s: error: %s\n", c.name, e.what());
            return 1;
        } catch (const std::exception& e) {
            std::fprintf(stderr, "qwen3tts %s: error: %s\n", c.name, e.what());
            return 1;
        }
    }
    std::fprintf(stderr, "qwen3tts: unknown command '%s'\n", argv[1]);
    usage();
    return 2;
}
