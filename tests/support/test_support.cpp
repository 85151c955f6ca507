#include "support/test_support.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <stdexcept>

#include "qwen3tts/error.hpp"

namespace qwen3tts::testing {

std::string data_dir() {
    return QWEN3TTS_TEST_DATA;
}
std::string model_dir(const std::string& name) {
    return data_dir() + "/models/" + name;
}
std::string golden_dir(const std::string& name) {
    return data_dir() + "/golden/" + name;
}
std::string tmp_dir() {
    return QWEN3TTS_TEST_TMP;
}
std::string generated_dir() {
    return QWEN3TTS_GENERATED;
}

NpyArray golden(const std::string& variant, const std::string& file_stem) {
    return read_npy(golden_dir(variant) + "/" + file_stem + ".npy");
}

Diff compare(const std::vector<float>& actual, const std::vector<float>& expected) {
    if (actual.size() != expected.size())
        throw std::runtime_error("compare: size " + std::to_string(actual.size()) + " vs " +
                                 std::to_string(expected.size()));
    Diff d;
    for (size_t i = 0; i < actual.size(); ++i) {
        const double e = std::fabs(double(actual[i]) - double(expected[i]));
        if (!(e <= d.max_abs)) {  // also catches NaN
            d.max_abs = std::isnan(e) ? INFINITY : e;
            d.argmax = i;
        }
        d.max_ref = std::max(d.max_ref, std::fabs(double(expected[i])));
    }
    return d;
}

std::string shell_quote(const std::string& s) {
    std::string out = "'";
    for (char c : s) {
        if (c == '\'')
            out += "'\\''";
        else
            out += c;
    }
    return out + "'";
}

CommandResult run_shell(const std::string& command) {
    CommandResult r;
    std::FILE* p = ::popen((command + " 2>&1").c_str(), "r");
    if (!p) throw std::runtime_error("popen failed: " + command);
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.output.append(buf, n);
    const int status = ::pclose(p);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return r;
}

CommandResult run_cli(const std::string& args) {
    return run_shell(shell_quote(QWEN3TTS_CLI) + " " + args);
}

size_t resident_bytes() {
    std::ifstream statm("/proc/self/statm");
    size_t size = 0, resident = 0;
    statm >> size >> resident;
    return resident * size_t(::sysconf(_SC_PAGESIZE));
}

std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

}  // namespace qwen3tts::testing
