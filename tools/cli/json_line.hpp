// One line of a JSON Lines file as a flat JSON object: string, number, true/false and null
// values (a batch request has no nested ones). Strict RFC 8259 syntax and UTF-8 (nlohmann/json);
// a syntax error names the column (1-based, in bytes) and what was expected.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace qwen3tts::cli {

struct JsonValue {
    enum class Kind { string, number, boolean, null };
    Kind kind = Kind::null;
    std::string text;  // a string's value (unescaped, UTF-8), or a number as written
    bool boolean = false;
};

// Members in the order written; a key given twice is an error.
using JsonObject = std::vector<std::pair<std::string, JsonValue>>;

JsonObject parse_json_object(const std::string& line);

}  // namespace qwen3tts::cli
