// Shared helpers for the test executables: paths of shipped data, reference arrays, array
// comparison and running the CLI as a user would.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/npy.hpp"

namespace qwen3tts::testing {

std::string data_dir();                           // tests/data
std::string model_dir(const std::string& name);   // tests/data/models/<name>
std::string golden_dir(const std::string& name);  // tests/data/golden/<name>
std::string tmp_dir();                            // per-build scratch directory
std::string generated_dir();                      // large fixtures generated on demand

NpyArray golden(const std::string& variant, const std::string& file_stem);

struct Diff {
    double max_abs = 0;  // max |a - b|
    double max_ref = 0;  // max |b|
    size_t argmax = 0;
};
Diff compare(const std::vector<float>& actual, const std::vector<float>& expected);

struct CommandResult {
    int exit_code = -1;
    std::string output;  // stdout and stderr together
};
// Runs the qwen3tts CLI with the given argument string (shell-quoted by the caller).
CommandResult run_cli(const std::string& args);
CommandResult run_shell(const std::string& command);
std::string shell_quote(const std::string& s);

// The message of the qwen3tts::Error that f throws, or "(no error)" when it throws none.
std::string error_of(const std::function<void()>& f);

// Resident memory of this process in bytes (/proc/self/statm, second field).
size_t resident_bytes();

}  // namespace qwen3tts::testing
