#include "text/text_segments.hpp"

#include <utf8proc.h>

#include <algorithm>
#include <string_view>
#include <utility>

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

}  // namespace

TextSegmenter::TextSegmenter(size_t max_chars, std::string what)
    : max_chars_(max_chars), what_(std::move(what)) {
    if (max_chars == 0)
        throw Error(ErrorCode::invalid_argument, "segment length must be at least 1 character");
}

void TextSegmenter::push(std::string_view text) {
    if (finished_) throw Error(ErrorCode::invalid_argument, what_ + ": pushed after its end");
    std::string s = cut_char_;
    s += text;
    const size_t valid = check_utf8_prefix(s, bytes_ - cut_char_.size(), what_.c_str());
    bytes_ += text.size();
    cut_char_.assign(s, valid, std::string::npos);
    const auto* p = reinterpret_cast<const utf8proc_uint8_t*>(s.data());
    for (size_t i = 0; i < valid;) {
        utf8proc_int32_t c = 0;
        const utf8proc_ssize_t n = utf8proc_iterate(p + i, utf8proc_ssize_t(valid - i), &c);
        QWEN3TTS_ASSERT(n > 0);
        add(char32_t(c));
        i += size_t(n);
    }
    cut_pieces(false);
}

void TextSegmenter::flush() {
    if (finished_) throw Error(ErrorCode::invalid_argument, what_ + ": flushed after its end");
    cut_pieces(true);  // a character cut by a push stays pending: it starts the next part
}

void TextSegmenter::finish() {
    if (finished_) return;
    if (!cut_char_.empty())
        throw_invalid_utf8(what_.c_str(), bytes_ - cut_char_.size(),
                           static_cast<unsigned char>(cut_char_[0]));
    cut_pieces(true);
    finished_ = true;
}

std::string TextSegmenter::take(size_t i) {
    if (i >= out_.size()) return {};
    for (; dropped_ < i; ++dropped_) std::string().swap(out_[dropped_].text);
    return std::exchange(out_[i].text, {});
}

void TextSegmenter::add(char32_t c) {
    if (begin_ == cps_.size()) {
        if (is_space(c)) return;  // before a piece: dropped
        cps_.clear();
        begin_ = 0;
        out_.emplace_back();
    }
    cps_.push_back(c);
}

// Sentence ends before code points scanned_ … min(size - 1, max_chars) of the piece: a cut
// there needs the code point after it, and none past max_chars is ever taken. Closers are
// followed forward (run_), so each code point is looked at once per piece.
void TextSegmenter::scan() {
    const char32_t* cp = cps_.data() + begin_;
    const size_t size = cps_.size() - begin_;
    const size_t least = std::max<size_t>(1, max_chars_ / 3);
    for (; scanned_ < size && scanned_ <= max_chars_; ++scanned_) {
        const size_t e = scanned_;
        if (!one_of(kClosers, cp[e - 1])) run_ = e;
        const bool end = is_line_break(cp[e]) || (run_ > 0 && one_of(kSentenceEnds, cp[run_ - 1]) &&
                                                  (is_space(cp[e]) || full_width(cp[run_ - 1])));
        if (end && e >= least) last_end_ = e;
    }
}

// The piece's code points before `end` that are not yet out, but for the spaces at the end
// (they are dropped should the cut come right after them).
void TextSegmenter::hand_out(size_t end) {
    const char32_t* cp = cps_.data() + begin_;
    for (; looked_ < end; ++looked_)  // ends only grow within a piece: each is looked at once
        if (!is_space(cp[looked_])) filled_ = looked_ + 1;
    std::string& text = out_.back().text;
    for (; handed_ < filled_; ++handed_) {
        utf8proc_uint8_t buf[4];
        const utf8proc_ssize_t n = utf8proc_encode_char(utf8proc_int32_t(cp[handed_]), buf);
        text.append(reinterpret_cast<const char*>(buf), size_t(n));
    }
}

void TextSegmenter::close_piece(size_t cut) {
    hand_out(cut);
    out_.back().closed = true;
    begin_ += cut;
    while (begin_ < cps_.size() && is_space(cps_[begin_])) ++begin_;
    handed_ = looked_ = filled_ = 0;
    scanned_ = 1;
    last_end_ = run_ = 0;
    if (begin_ == cps_.size()) {
        cps_.clear();
        begin_ = 0;
    } else {
        if (begin_ > cps_.size() / 2) {  // amortised: the text cut off is dropped
            cps_.erase(0, begin_);
            begin_ = 0;
        }
        out_.emplace_back();
    }
}

// Closes every piece whose cut is certain (all of them at the end of a part) and hands out the
// text of the open one that no later text can move.
void TextSegmenter::cut_pieces(bool at_end) {
    const size_t least = std::max<size_t>(1, max_chars_ / 3);
    for (;;) {
        const size_t size = cps_.size() - begin_;
        if (size == 0) return;
        scan();
        if (size <= max_chars_) {
            if (at_end)
                close_piece(size);
            else
                hand_out(std::max(std::min(least, size), last_end_));
            return;
        }
        // The best cut in [least, max_chars]: the last sentence end, else the last clause
        // mark, else the last space, else max_chars itself.
        const char32_t* cp = cps_.data() + begin_;
        size_t cut = last_end_;
        for (size_t e = max_chars_; cut == 0 && e >= least; --e)
            if (one_of(kClauseEnds, cp[e - 1]) && (is_space(cp[e]) || full_width(cp[e - 1])))
                cut = e;
        for (size_t e = max_chars_; cut == 0 && e >= least; --e)
            if (is_space(cp[e])) cut = e;
        close_piece(cut == 0 ? max_chars_ : cut);
    }
}

std::vector<std::string> split_text_segments(const std::string& text, size_t max_chars) {
    TextSegmenter segmenter(max_chars);
    segmenter.push(text);  // with finish(): check_utf8's error for invalid text
    segmenter.finish();
    std::vector<std::string> pieces;
    for (size_t i = 0; i < segmenter.segments(); ++i) pieces.push_back(segmenter.take(i));
    return pieces;
}

}  // namespace qwen3tts
