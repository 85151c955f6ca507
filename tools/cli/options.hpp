// The command-line vocabulary, declared once: every option with its help group, value name,
// one-line description and default, and every command with the options it takes. Parsing
// (args.cpp) and help (help.cpp) both read these tables, so they cannot drift apart.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace qwen3tts::cli {

struct OptionSpec {
    std::string name;          // without the leading "--"
    std::string group;         // help heading
    std::string value;         // value placeholder; empty = a switch (no value)
    std::string description;   // one line
    std::string default_text;  // shown as "(default: …)"; "required" = must be given
    bool repeatable = false;   // may be given several times (all values kept)
    char short_name = 0;       // e.g. 'q' for -q
    // A required option that this other option (one the command declares) stands in for.
    const char* required_unless = nullptr;
    bool required() const { return default_text == "required"; }
    bool is_switch() const { return value.empty(); }
};

class Args;

struct CommandSpec {
    std::string name;
    std::string summary;     // one line, for `qwen3tts help`
    std::string positional;  // placeholder of the one positional argument, or ""
    bool positional_required = false;
    std::vector<const OptionSpec*> options;
    int (*run)(const Args&) = nullptr;
    std::string notes;  // printed after the options (may be empty)
};

// Help on `out`: the commands (overview) or one command's usage, options and defaults.
void print_overview(std::FILE* out);
void print_command_help(const CommandSpec& command, std::FILE* out);

// All commands in the order `qwen3tts help` lists them.
const std::vector<CommandSpec>& commands();
const CommandSpec* find_command(const std::string& name);

// The switch every command takes (-h, --help): prints the command's help on stdout.
extern const OptionSpec kHelp;

constexpr const char* kDefaultModel = "Qwen/Qwen3-TTS-12Hz-0.6B-CustomVoice";
// `encode` refuses longer audio (the encoder's memory grows with the length).
constexpr double kEncodeMaxSeconds = 600.0;

}  // namespace qwen3tts::cli
