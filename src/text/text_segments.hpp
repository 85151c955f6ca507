// Long texts cut into segments that are spoken one after the other
// (SynthesisOptions::segment_chars): each segment is a generation of its own, so the talker's
// context, its KV cache and the cost of a frame stay bounded for a text of any length. The
// official code speaks a text as one sequence (up to max_new_tokens frames, ~11 minutes);
// segmenting is the usual front end of a TTS system for long-form speech.
#pragma once

#include <cstddef>
#include <string>
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

}  // namespace qwen3tts
