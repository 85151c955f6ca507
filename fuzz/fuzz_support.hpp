// Helpers shared by the libFuzzer harnesses: the parsers under test take file paths, so each
// input is written to a private scratch directory first.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <utility>

namespace qwen3tts::fuzz {

// A directory of this process under $TMPDIR (scripts/fuzz.sh points it at a folder it removes).
inline const std::string& scratch_dir() {
    static const std::string dir = [] {
        const char* tmp = std::getenv("TMPDIR");
        std::string path = std::string(tmp && *tmp ? tmp : "/tmp") + "/qwen3tts-fuzz-XXXXXX";
        if (!::mkdtemp(path.data())) std::abort();
        return path;
    }();
    return dir;
}

inline std::string write_file(const std::string& name, const void* data, size_t size) {
    const std::string path = scratch_dir() + "/" + name;
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(static_cast<const char*>(data), std::streamsize(size));
    if (!out) std::abort();
    return path;
}

inline std::string write_file(const std::string& name, const std::string& text) {
    return write_file(name, text.data(), text.size());
}

// Inputs that hold two files: the first, kSeparator, the second (the seeds are written so).
constexpr const char* kSeparator = "\n=====\n";

inline std::pair<std::string, std::string> split_two(const uint8_t* data, size_t size) {
    const std::string all(reinterpret_cast<const char*>(data), size);
    const size_t at = all.find(kSeparator);
    if (at == std::string::npos) return {all, std::string()};
    return {all.substr(0, at), all.substr(at + std::string(kSeparator).size())};
}

}  // namespace qwen3tts::fuzz
