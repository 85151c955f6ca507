// Typed, range-checked reading of the fields of a JSON config object, shared by every config
// reader (model, codec decoder/encoder, tokenizer). A failure is Error(format)
// "<source>: <json path>: <why>", naming the file, the field and the offending value, e.g.
// "model/config.json: talker_config.head_dim: must be in [1, 4096], got 0".
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/text_file.hpp"

namespace qwen3tts {

// Error(format) "<source>: invalid JSON (...)" when `text` is not JSON.
nlohmann::json parse_json(const std::string& text, const std::string& source);
// read_text_file(path, what, max_bytes), then parse_json with the path as source.
nlohmann::json read_json_file(const std::string& path, const std::string& what,
                              uint64_t max_bytes = kMaxTextFileBytes);

class JsonFields {
  public:
    // A view of `obj` (which must outlive it); `path` is the JSON path of `obj` ("" = root).
    // Error naming source/path unless `obj` is an object.
    JsonFields(const nlohmann::json& obj, std::string source, std::string path = "");

    const nlohmann::json& raw() const { return obj_; }
    const std::string& source() const { return source_; }
    // JSON path of `key` in this object: "talker_config.vocab_size".
    std::string field(const std::string& key) const;
    // Error(code) "<source>: <field(key)>: <why>".
    [[noreturn]] void fail(const std::string& key, const std::string& why,
                           ErrorCode code = ErrorCode::format) const;

    bool has(const std::string& key) const;                  // present and not null
    const nlohmann::json& at(const std::string& key) const;  // "missing" unless has(key)
    JsonFields object(const std::string& key) const;         // a nested object

    // Integers (an integral float such as 10000.0 counts) within [lo, hi].
    int get_int(const std::string& key, int lo, int hi) const;
    int get_int_or(const std::string& key, int fallback, int lo, int hi) const;
    // Finite numbers within [lo, hi].
    double get_number(const std::string& key, double lo, double hi) const;
    double get_number_or(const std::string& key, double fallback, double lo, double hi) const;
    bool get_bool(const std::string& key) const;
    bool get_bool_or(const std::string& key, bool fallback) const;
    std::string get_string(const std::string& key) const;
    std::string get_string_or(const std::string& key, const std::string& fallback) const;
    // A non-empty list of at most `max_len` integers, each within [lo, hi].
    std::vector<int> get_int_list(const std::string& key, int lo, int hi, size_t max_len) const;
    std::vector<int> get_int_list_or(const std::string& key, const std::vector<int>& fallback,
                                     int lo, int hi, size_t max_len) const;

    // The same checks on a value found elsewhere (a map entry, a list element); `field` is
    // its JSON path relative to this object.
    int int_value(const nlohmann::json& v, const std::string& field, int lo, int hi) const;

  private:
    const nlohmann::json& obj_;
    std::string source_, path_;
};

// Product of config list entries (strides, ratios) with overflow checking: -1 when an entry is
// not positive or the product exceeds `limit`.
int64_t bounded_product(const std::vector<int>& values, int64_t limit);

}  // namespace qwen3tts
