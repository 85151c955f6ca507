#include "core/text_file.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "core/error.hpp"

namespace qwen3tts {

namespace {

[[noreturn]] void too_large(const std::string& path, const std::string& what, uint64_t size,
                            uint64_t max_bytes, bool at_least) {
    throw Error(ErrorCode::format, what + " " + path + " is " + (at_least ? "over " : "") +
                                       std::to_string(size) + " bytes; the limit is " +
                                       std::to_string(max_bytes) + " bytes");
}

}  // namespace

std::string read_text_file(const std::string& path, const std::string& what, uint64_t max_bytes) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0)
        throw Error(ErrorCode::io, "cannot open " + what + " " + path + " (" +
                                       (errno == ENOENT ? std::string("no such file")
                                                        : std::string(std::strerror(errno))) +
                                       ")");
    if (S_ISDIR(st.st_mode))
        throw Error(ErrorCode::io, "cannot open " + what + " " + path + ": it is a directory");
    if (S_ISREG(st.st_mode) && uint64_t(st.st_size) > max_bytes)
        too_large(path, what, uint64_t(st.st_size), max_bytes, false);
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(ErrorCode::io, "cannot open " + what + " " + path);
    std::string text;
    if (S_ISREG(st.st_mode)) text.reserve(size_t(st.st_size));
    char buf[1 << 16];
    // The size can change after stat (or be unknown, for a pipe): the limit holds while reading.
    while (in.read(buf, sizeof buf) || in.gcount() > 0) {
        text.append(buf, size_t(in.gcount()));
        if (text.size() > max_bytes) too_large(path, what, max_bytes, max_bytes, true);
    }
    if (in.bad()) throw Error(ErrorCode::io, "cannot read " + what + " " + path);
    return text;
}

std::string read_first_word(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > 4096) return "";
    std::ifstream in(path);
    std::string word;
    in >> word;
    return word;
}

}  // namespace qwen3tts
