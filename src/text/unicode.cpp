#include "text/unicode.hpp"

#include <utf8proc.h>

#include <cstdlib>
#include <memory>

#include "core/error.hpp"

namespace qwen3tts {

namespace {

bool is_ascii(const std::string& s) {
    for (unsigned char c : s) {
        if (c >= 0x80) return false;
    }
    return true;
}

}  // namespace

void check_utf8(const std::string& s, const char* what) {
    const auto* p = reinterpret_cast<const utf8proc_uint8_t*>(s.data());
    const utf8proc_ssize_t n = static_cast<utf8proc_ssize_t>(s.size());
    utf8proc_ssize_t pos = 0;
    while (pos < n) {
        if (p[pos] < 0x80) {  // ASCII fast path
            ++pos;
            continue;
        }
        utf8proc_int32_t cp = 0;
        const utf8proc_ssize_t len = utf8proc_iterate(p + pos, n - pos, &cp);
        if (len < 0) {
            static const char* hex = "0123456789abcdef";
            const std::string byte{hex[p[pos] >> 4], hex[p[pos] & 15]};
            throw Error(ErrorCode::invalid_argument,
                        std::string(what) + ": invalid UTF-8 at byte offset " +
                            std::to_string(pos) + " (byte 0x" + byte + ")");
        }
        pos += len;
    }
}

std::string nfc(const std::string& s) {
    if (is_ascii(s)) return s;  // ASCII is NFC already
    utf8proc_uint8_t* out = nullptr;
    const utf8proc_ssize_t len =
        utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(s.data()),
                     static_cast<utf8proc_ssize_t>(s.size()), &out,
                     static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPOSE));
    if (len < 0) {
        throw Error(ErrorCode::invalid_argument,
                    std::string("NFC normalisation failed: ") + utf8proc_errmsg(len));
    }
    std::unique_ptr<utf8proc_uint8_t, decltype(&std::free)> owner(out, &std::free);
    return std::string(reinterpret_cast<const char*>(out), static_cast<size_t>(len));
}

std::string utf8_lossy(const std::string& bytes) {
    const auto* p = reinterpret_cast<const utf8proc_uint8_t*>(bytes.data());
    const utf8proc_ssize_t n = static_cast<utf8proc_ssize_t>(bytes.size());
    std::string out;
    out.reserve(bytes.size());
    utf8proc_ssize_t pos = 0;
    while (pos < n) {
        utf8proc_int32_t cp = 0;
        const utf8proc_ssize_t len = utf8proc_iterate(p + pos, n - pos, &cp);
        if (len > 0) {
            out.append(bytes, static_cast<size_t>(pos), static_cast<size_t>(len));
            pos += len;
        } else {
            out += "\xEF\xBF\xBD";  // U+FFFD
            ++pos;
        }
    }
    return out;
}

}  // namespace qwen3tts
