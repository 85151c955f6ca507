// Minimal command-line parsing for the subcommands: "--name value" options and "--flag"
// switches, each declared up front so that a misspelt option is an error, not ignored.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

namespace qwen3tts::cli {

class Args {
  public:
    // argv[0] is the subcommand name.
    Args(int argc, char** argv, const std::set<std::string>& options,
         const std::set<std::string>& flags);

    bool has(const std::string& name) const { return values_.count(name) || flags_.count(name); }
    std::string get(const std::string& name, const std::string& fallback = "") const;
    int get_int(const std::string& name, int fallback) const;
    float get_float(const std::string& name, float fallback) const;
    bool flag(const std::string& name) const { return flags_.count(name) != 0; }

  private:
    std::map<std::string, std::string> values_;
    std::set<std::string> flags_;
};

// "--text -" reads standard input.
std::string read_text_argument(const std::string& value);

constexpr const char* kDefaultModel = "Qwen/Qwen3-TTS-12Hz-0.6B-CustomVoice";

}  // namespace qwen3tts::cli
