// qwen3tts command-line entry point: dispatches to one subcommand per file (cmd_*.cpp).
#include <cstdio>
#include <cstring>
#include <string>

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: qwen3tts <command> [options]\n");
        return 2;
    }
    std::fprintf(stderr, "qwen3tts: unknown command '%s'\n", argv[1]);
    return 2;
}
