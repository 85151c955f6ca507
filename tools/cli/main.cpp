// qwen3tts command-line entry point: dispatches to one subcommand per file (cmd_*.cpp) and
// turns errors into one clear line on stderr and a non-zero exit code.
#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "args.hpp"
#include "options.hpp"
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

void print_version() {
    const qwen3tts::BuildInfo b = qwen3tts::build_info();
    // build_info() gives the level the kernels use: the CPU's best unless QWEN3TTS_ISA lowers
    // it (it throws for an unknown level or one above the CPU's).
    const char* isa_env = std::getenv("QWEN3TTS_ISA");
    const char* origin = isa_env && *isa_env ? "set by QWEN3TTS_ISA" : "detected on this CPU";
    std::printf("qwen3tts %s\ngit commit  %s\nsimd        %s (%s)\nbuild type  %s\n",
                b.version.c_str(), b.git_commit.c_str(), b.simd.c_str(), origin,
                b.build_type.c_str());
}

}  // namespace

int main(int argc, char** argv) {
    using namespace qwen3tts::cli;
    install_signal_handlers();
    if (argc < 2) {
        print_overview(stderr);
        return 2;
    }
    const std::string first = argv[1];
    if (first == "--help" || first == "-h") {
        print_overview(stdout);
        return 0;
    }
    if (first == "--version" || first == "-V") {
        try {
            print_version();
            return 0;
        } catch (const std::exception& e) {  // e.g. QWEN3TTS_ISA names an unknown level
            std::fprintf(stderr, "qwen3tts --version: error: %s\n", e.what());
            return 1;
        }
    }
    const CommandSpec* c = find_command(first);
    if (!c) {
        std::fprintf(stderr, "qwen3tts: unknown command '%s' (`qwen3tts help` lists them)\n",
                     first.c_str());
        return 2;
    }
    try {
        const Args args(*c, argc - 1, argv + 1);
        if (args.help_requested()) {
            print_command_help(*c, stdout);
            return 0;
        }
        return c->run(args);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "qwen3tts %s: error: %s\n", c->name.c_str(), e.what());
        return 1;
    }
}
