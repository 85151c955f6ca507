// Long texts cut into segments that are spoken one after the other
// (SynthesisOptions::segment_chars): each segment is a generation of its own, so the talker's
// context, its KV cache and the cost of a frame stay bounded for a text of any length. The
// official code speaks a text as one sequence (up to max_new_tokens frames, ~11 minutes);
// segmenting is the usual front end of a TTS system for long-form speech.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace qwen3tts {

// `text` (valid UTF-8) as consecutive pieces of at most `max_chars` code points (≥ 1), cut where
// the text allows it best: after the end of a sentence (. ! ? … and their CJK forms, with any
// closing quotes or brackets; a line break ends one too), else after a clause mark (, ; : and
// their CJK forms), else at a space, else between any two characters. The best cut is the
// last one of its kind that keeps at least a third of `max_chars` in the piece, so whole
// sentences stay together while they fit and no piece is a stray word. Whitespace around a cut
// is dropped; no piece is empty, and a text of whitespace only has none.
std::vector<std::string> split_text_segments(const std::string& text, size_t max_chars);

// split_text_segments for text that arrives in pieces (streaming text input): each segment's
// text is handed out as soon as no later text can move it into another segment, and a segment
// is closed as soon as its cut is certain. For any cutting of a text T (inside characters too),
// the segments equal split_text_segments(T). A piece's cut is certain once max_chars + 1 code
// points from its start are there (or at the end); until then its text goes out up to the last
// sentence end seen past a third of max_chars (the cut cannot come before it), or up to that
// third. flush() ends a part: with flushes after T1, T2, ... the segments are those of T1, then
// those of T2, and so on (a writer's pause ends a segment).
class TextSegmenter {
  public:
    // `what` names the text in UTF-8 errors, as check_utf8 does.
    TextSegmenter(size_t max_chars, std::string what = "text");
    // Appends text. Invalid UTF-8 throws Error(invalid_argument) with its byte offset in the
    // whole text; a character cut by a push waits for its other bytes.
    void push(std::string_view text);
    void flush();
    // The text is complete (a character still cut is invalid UTF-8).
    void finish();
    bool finished() const { return finished_; }

    // Segments begun so far (each has text), in order.
    size_t segments() const { return out_.size(); }
    // Segment i's text handed out since the last take (UTF-8); the text of segments before i
    // is dropped unread.
    std::string take(size_t i);
    // Whether segment i has all its text (handed out or not yet taken).
    bool closed(size_t i) const { return i < out_.size() && out_[i].closed; }

  private:
    struct Out {
        std::string text;
        bool closed = false;
    };
    void add(char32_t c);
    void scan();
    void hand_out(size_t end);
    void cut_pieces(bool at_end);
    void close_piece(size_t cut);

    size_t max_chars_;
    std::string what_;
    size_t bytes_ = 0;      // pushed so far
    std::string cut_char_;  // the first bytes of a character cut by a push
    bool finished_ = false;
    // The text not yet in a closed segment: code points [begin_, cps_.size()), starting at a
    // non-space (indices below are from begin_). handed_ of them are out; those before looked_
    // were looked at for spaces, the last non-space before filled_; sentence ends were checked
    // before scanned_, the latest at last_end_; run_ is where the closers before scanned_ begin.
    std::u32string cps_;
    size_t begin_ = 0, handed_ = 0, looked_ = 0, filled_ = 0;
    size_t scanned_ = 1, last_end_ = 0, run_ = 0;
    std::vector<Out> out_;
    size_t dropped_ = 0;  // segments before this one were taken for the last time
};

}  // namespace qwen3tts
