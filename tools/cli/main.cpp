// qwen3tts command-line entry point: dispatches to one subcommand per file (cmd_*.cpp) and
// turns errors into one clear line on stderr and a non-zero exit code.
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

#include "commands.hpp"
#include "qwen3tts/error.hpp"

namespace {

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
