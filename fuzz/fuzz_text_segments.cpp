// Long texts cut into segments (text/text_segments.hpp): the first byte is the limit in
// characters (1-256), the rest the text. Invalid UTF-8 must be an Error; otherwise every piece
// is non-empty, within the limit and valid UTF-8, and the pieces are pieces of the text, in
// order (tests/unit/test_text_segments.cpp checks that only whitespace is dropped). The text
// pushed to a TextSegmenter in pieces of 0-7 bytes (sizes drawn from the text itself) must give
// the same segments, and the same error.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/strings.hpp"
#include "text/text_segments.hpp"
#include "text/unicode.hpp"

namespace {

// Whether `part` is `whole` with some bytes left out (in order).
bool subsequence(const std::string& part, const std::string& whole) {
    size_t i = 0;
    for (char c : whole)
        if (i < part.size() && part[i] == c) ++i;
    return i == part.size();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    const size_t limit = size_t(data[0]) + 1;
    const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
    std::vector<std::string> pieces;
    try {
        pieces = qwen3tts::split_text_segments(text, limit);
    } catch (const qwen3tts::Error&) {
        try {
            qwen3tts::check_utf8(text, "text");
        } catch (const qwen3tts::Error&) {
            return 0;  // refused for its bytes, as it should be
        }
        __builtin_trap();  // valid text refused
    }
    std::string joined;
    for (const std::string& p : pieces) {
        if (p.empty() || qwen3tts::utf8_code_points(p) > limit) __builtin_trap();
        qwen3tts::check_utf8(p,
                             "piece");  // throws (and the fuzzer reports it) if cut mid-character
        joined += p;
    }
    if (!subsequence(joined, text)) __builtin_trap();

    qwen3tts::TextSegmenter segmenter(limit);
    std::vector<std::string> pushed;
    uint32_t draw = 2166136261u;
    for (size_t at = 0; at < text.size();) {
        draw = (draw ^ uint8_t(text[at])) * 16777619u;
        const size_t n = std::min<size_t>(text.size() - at, draw % 8);
        segmenter.push(text.substr(at, n));  // valid text: throws nothing
        at += n;
        pushed.resize(segmenter.segments());
        for (size_t i = 0; i < pushed.size(); ++i) pushed[i] += segmenter.take(i);
    }
    segmenter.finish();
    pushed.resize(segmenter.segments());
    for (size_t i = 0; i < pushed.size(); ++i) pushed[i] += segmenter.take(i);
    if (pushed != pieces) __builtin_trap();
    return 0;
}
