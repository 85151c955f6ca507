// Public option strings → internal enums (one place, so every entry point says the same).
#pragma once

#include <string>

#include "core/error.hpp"
#include "model/prompt.hpp"
#include "runtime/speech.hpp"

namespace qwen3tts {

inline TextLayout parse_text_layout(const std::string& s) {
    if (s == "auto" || s.empty()) return TextLayout::automatic;
    if (s == "streaming") return TextLayout::streaming;
    if (s == "non-streaming") return TextLayout::non_streaming;
    throw Error(ErrorCode::invalid_argument,
                "unknown text layout '" + s + "' (auto, streaming or non-streaming)");
}

inline CodecDecodeMode parse_codec_decode(const std::string& s) {
    if (s == "streaming" || s.empty()) return CodecDecodeMode::streaming;
    if (s == "official-chunked") return CodecDecodeMode::official_chunked;
    throw Error(ErrorCode::invalid_argument,
                "unknown codec decode mode '" + s + "' (streaming or official-chunked)");
}

}  // namespace qwen3tts
