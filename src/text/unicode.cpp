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

// A lead byte followed only by continuation bytes, fewer than it needs: the start of a character
// that the next bytes of the input may complete.
bool incomplete_at_end(const utf8proc_uint8_t* p, utf8proc_ssize_t n) {
    const int need = p[0] >= 0xC2 && p[0] <= 0xDF   ? 2
                     : p[0] >= 0xE0 && p[0] <= 0xEF ? 3
                     : p[0] >= 0xF0 && p[0] <= 0xF4 ? 4
                                                    : 0;
    if (n >= need) return false;
    for (utf8proc_ssize_t i = 1; i < n; ++i)
        if ((p[i] & 0xC0) != 0x80) return false;
    return true;
}

}  // namespace

void throw_invalid_utf8(const char* what, size_t offset, unsigned char first) {
    static const char* hex = "0123456789abcdef";
    const std::string byte{hex[first >> 4], hex[first & 15]};
    throw Error(ErrorCode::invalid_argument, std::string(what) + ": invalid UTF-8 at byte offset " +
                                                 std::to_string(offset) + " (byte 0x" + byte + ")");
}

size_t check_utf8_prefix(std::string_view s, size_t offset, const char* what) {
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
            if (incomplete_at_end(p + pos, n - pos)) return static_cast<size_t>(pos);
            throw_invalid_utf8(what, offset + static_cast<size_t>(pos), p[pos]);
        }
        pos += len;
    }
    return s.size();
}

void check_utf8(const std::string& s, const char* what) {
    const size_t valid = check_utf8_prefix(s, 0, what);
    if (valid < s.size()) throw_invalid_utf8(what, valid, static_cast<unsigned char>(s[valid]));
}

bool nfc_boundary_before(std::string_view s, size_t pos) {
    const auto* p = reinterpret_cast<const utf8proc_uint8_t*>(s.data());
    if (p[pos] < 0x80) return true;  // a starter that no composition takes as second character
    utf8proc_int32_t c = 0;
    const utf8proc_ssize_t len =
        utf8proc_iterate(p + pos, static_cast<utf8proc_ssize_t>(s.size() - pos), &c);
    if (len <= 0) return false;
    utf8proc_int32_t decomposed[8];
    int boundclass = 0;
    const utf8proc_ssize_t n_dec =
        utf8proc_decompose_char(c, decomposed, 8, UTF8PROC_DECOMPOSE, &boundclass);
    if (n_dec <= 0 || n_dec > 8 || utf8proc_get_property(decomposed[0])->combining_class != 0)
        return false;
    const std::string before(s.substr(0, pos));
    const std::string ch(s.substr(pos, static_cast<size_t>(len)));
    return nfc(before + ch) == nfc(before) + nfc(ch);
}

bool nfc_final_at_end(std::string_view s) {
    if (s.empty()) return false;
    const auto last = static_cast<unsigned char>(s.back());
    if (last < 0x80) {
        const bool letter = (last >= 'a' && last <= 'z') || (last >= 'A' && last <= 'Z');
        return !letter && last != '<' && last != '=' && last != '>';
    }
    size_t start = s.size() - 1;
    while (start > 0 && (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80) --start;
    utf8proc_int32_t c = 0;
    const auto* p = reinterpret_cast<const utf8proc_uint8_t*>(s.data());
    if (utf8proc_iterate(p + start, static_cast<utf8proc_ssize_t>(s.size() - start), &c) <= 0)
        return false;
    return (c >= 0x3000 && c <= 0x3029) || (c >= 0x3030 && c <= 0x303F) ||
           (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0xFF00 && c <= 0xFFEF);
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
