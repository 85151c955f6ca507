// What a requested language means for a checkpoint: "auto", a codec_language_id key of a
// language ("english"), or its ISO 639-1 code ("en"), case-insensitively. Dialect keys
// ("beijing_dialect") are refused, as the official wrapper's _validate_languages does (they
// are not in get_supported_languages): a dialect is reached through the CustomVoice speaker
// that carries it, when the language is auto or chinese.
#pragma once

#include <string>

#include "model/config.hpp"

namespace qwen3tts {

// ISO 639-1 code of a language key ("english" → "en"), "" when it has none.
std::string language_code(const std::string& key);

// The lower-case key ("auto" or a codec_language_id key) that `requested` names; throws
// Error(invalid_argument) for "", a dialect, or a name this checkpoint does not have.
std::string resolve_language(const ModelConfig& cfg, const std::string& requested);

}  // namespace qwen3tts
