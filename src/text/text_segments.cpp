#include "text/text_segments.hpp"

#include <utf8proc.h>

#include <algorithm>
#include <string_view>

#include "core/error.hpp"
#include "text/unicode.hpp"

namespace qwen3tts {

namespace {

// The punctuation that ends a sentence or a clause, by hand: Unicode's Sentence_Terminal and
// Terminal_Punctuation properties are not in utf8proc, and only these marks matter for the
// scripts the models speak. Full-width marks (from U+3000) need no space after them.
constexpr std::u32string_view kSentenceEnds =
    U".!?\u2026\u203C\u2047\u2048\u2049\u3002\uFF0E\uFF61\uFF01\uFF1F";
constexpr std::u32string_view kClauseEnds = U",;:\u3001\uFF0C\uFF1B\uFF1A";
// Closing quotes and brackets, which stay with the sentence they close.
constexpr std::u32string_view kClosers = U"\"')]}\u2019\u201D\u00BB\u203A\u300D\u300F\u3011\uFF09";

bool one_of(std::u32string_view set, char32_t c) {
    return set.find(c) != std::u32string_view::npos;
}

bool full_width(char32_t c) {
    return c >= 0x3000;
}

// A space a piece may end at: the no-break spaces (U+00A0, U+2007, U+202F) hold their
// neighbours together.
bool is_space(char32_t c) {
    if (c == 0x00A0 || c == 0x2007 || c == 0x202F) return false;
    const utf8proc_category_t cat = utf8proc_category(utf8proc_int32_t(c));
    return c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' ||
           cat == UTF8PROC_CATEGORY_ZS || cat == UTF8PROC_CATEGORY_ZL ||
           cat == UTF8PROC_CATEGORY_ZP;
}

bool is_line_break(char32_t c) {
    return c == '\n' || c == '\r' || c == 0x2028 || c == 0x2029;
}

struct CodePoint {
    char32_t c;
    size_t byte;  // offset of its first byte
};

// `text` has passed check_utf8.
std::vector<CodePoint> decode(const std::string& text) {
    std::vector<CodePoint> out;
    const auto* p = reinterpret_cast<const utf8proc_uint8_t*>(text.data());
    for (size_t i = 0; i < text.size();) {
        utf8proc_int32_t c = 0;
        const utf8proc_ssize_t n = utf8proc_iterate(p + i, utf8proc_ssize_t(text.size() - i), &c);
        QWEN3TTS_ASSERT(n > 0);
        out.push_back({char32_t(c), i});
        i += size_t(n);
    }
    return out;
}

}  // namespace

std::vector<std::string> split_text_segments(const std::string& text, size_t max_chars) {
    if (max_chars == 0)
        throw Error(ErrorCode::invalid_argument, "segment length must be at least 1 character");
    check_utf8(text, "text");
    const std::vector<CodePoint> cps = decode(text);
    const size_t n = cps.size();
    auto byte_at = [&](size_t i) { return i < n ? cps[i].byte : text.size(); };
    size_t start = 0;  // of the piece being cut
    // Whether the piece may end before code point e (start < e < n) at each level, best first.
    // Closers are looked through within the piece only: a run of them as long as the text
    // costs one pass, not one per place tried.
    auto sentence_end = [&](size_t e) {
        if (is_line_break(cps[e].c)) return true;
        size_t k = e;
        while (k > start && one_of(kClosers, cps[k - 1].c)) --k;
        return k > start && one_of(kSentenceEnds, cps[k - 1].c) &&
               (is_space(cps[e].c) || full_width(cps[k - 1].c));
    };
    auto clause_end = [&](size_t e) {
        return one_of(kClauseEnds, cps[e - 1].c) &&
               (is_space(cps[e].c) || full_width(cps[e - 1].c));
    };
    auto space_before = [&](size_t e) { return is_space(cps[e].c); };

    std::vector<std::string> pieces;
    auto emit = [&](size_t b, size_t e) {
        while (b < e && is_space(cps[b].c)) ++b;
        while (e > b && is_space(cps[e - 1].c)) --e;
        if (b < e) pieces.push_back(text.substr(byte_at(b), byte_at(e) - byte_at(b)));
    };
    while (start < n && is_space(cps[start].c)) ++start;
    while (start < n) {
        if (n - start <= max_chars) {
            emit(start, n);
            break;
        }
        const size_t limit = start + max_chars, least = start + std::max<size_t>(1, max_chars / 3);
        size_t cut = limit;  // between any two characters, when nothing better is found
        auto allowed = [&](int level, size_t e) {
            return level == 0 ? sentence_end(e) : level == 1 ? clause_end(e) : space_before(e);
        };
        bool found = false;
        for (int level = 0; level < 3 && !found; ++level)
            for (size_t e = limit; e >= least && !found; --e)
                if (allowed(level, e)) {
                    cut = e;
                    found = true;
                }
        emit(start, cut);
        start = cut;
        while (start < n && is_space(cps[start].c)) ++start;
    }
    return pieces;
}

}  // namespace qwen3tts
