// Command-line parsing against a command's declared options (options.hpp): "--name value",
// "--name=value", switches ("--flag", "--flag=true|false"), -h/--help, and at most one
// positional argument where the command declares one. A misspelt, repeated or value-less
// option is an error, never ignored. Values are kept as typed, so that messages quote them.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "options.hpp"

namespace qwen3tts::cli {

class Args {
  public:
    // argv[0] is the command name. Stops at -h/--help (help_requested()).
    Args(const CommandSpec& command, int argc, char** argv);

    const CommandSpec& command() const { return *command_; }
    bool help_requested() const { return help_; }
    const std::string& positional() const { return positional_; }

    bool declares(const std::string& name) const;  // the command takes --name
    bool has(const std::string& name) const;
    bool flag(const std::string& name) const;
    std::string get(const std::string& name, const std::string& fallback = "") const;
    std::vector<std::string> get_all(const std::string& name) const;  // repeatable options

    // Typed getters: a value that does not parse, or is out of range, is an Error quoting
    // the option and the value as typed.
    int get_int(const std::string& name, int fallback, int min) const;
    enum class Range { positive, probability };  // > 0; (0, 1]
    float get_float(const std::string& name, float fallback, Range range) const;
    // The full uint64 range, decimal.
    uint64_t get_u64(const std::string& name) const;

  private:
    const OptionSpec& spec(const std::string& name) const;
    const CommandSpec* command_;
    bool help_ = false;
    std::string positional_;
    std::map<std::string, std::vector<std::string>> values_;
    std::set<std::string> flags_;
};

// The value of a text option (--text, --ref-text, --instruct): "-" reads standard input.
// Checked to be UTF-8; the error names the option and the byte offset in that text.
std::string read_text_option(const Args& args, const std::string& name);

// Offset of the first byte of s that does not begin a valid UTF-8 sequence (overlong forms,
// surrogates and code points above U+10FFFF are invalid), or std::string::npos.
size_t invalid_utf8_offset(const std::string& s);

}  // namespace qwen3tts::cli
