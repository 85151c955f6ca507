#include "core/text_file.hpp"

#include <sys/stat.h>

#include <cstdint>
#include <fstream>
#include <sstream>

#include "core/error.hpp"

namespace qwen3tts {

std::string read_text_file(const std::string& path, const std::string& what, size_t max_bytes) {
    std::ifstream in(path, std::ios::binary);
    struct stat st;
    if (!in || ::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
        throw Error(ErrorCode::io, "cannot open " + what + " " + path);
    if (uint64_t(st.st_size) > max_bytes)
        throw Error(ErrorCode::format, what + " " + path + " is " + std::to_string(st.st_size) +
                                           " bytes, more than the limit of " +
                                           std::to_string(max_bytes));
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

}  // namespace qwen3tts
