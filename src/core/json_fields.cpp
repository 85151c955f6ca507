#include "core/json_fields.hpp"

#include <cmath>
#include <sstream>

namespace qwen3tts {

using nlohmann::json;

namespace {

std::string number_str(double v) {
    std::ostringstream s;
    s << v;
    return s.str();
}

std::string range_str(int64_t lo, int64_t hi) {
    return "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
}

// Integral and representable as int64 (false for NaN and infinities).
bool integral(double d) {
    return d == std::floor(d) && std::fabs(d) < 9e18;
}

// A JSON dump cut short, so that an error naming a huge value stays readable.
std::string short_dump(const json& v) {
    std::string s = v.dump();
    if (s.size() > 80) s = s.substr(0, 77) + "...";
    return s;
}

}  // namespace

json parse_json(const std::string& text, const std::string& source) {
    try {
        return json::parse(text);
    } catch (const json::exception& e) {
        throw Error(ErrorCode::format, source + ": invalid JSON (" + e.what() + ")");
    }
}

json read_json_file(const std::string& path, const std::string& what, uint64_t max_bytes) {
    return parse_json(read_text_file(path, what, max_bytes), path);
}

JsonFields::JsonFields(const json& obj, std::string source, std::string path)
    : obj_(obj), source_(std::move(source)), path_(std::move(path)) {
    if (!obj_.is_object())
        throw Error(ErrorCode::format, source_ + ": " + (path_.empty() ? "the file" : path_) +
                                           ": expected a JSON object, got " + short_dump(obj_));
}

std::string JsonFields::field(const std::string& key) const {
    return path_.empty() ? key : path_ + "." + key;
}

void JsonFields::fail(const std::string& key, const std::string& why, ErrorCode code) const {
    throw Error(code, source_ + ": " + field(key) + ": " + why);
}

bool JsonFields::has(const std::string& key) const {
    const auto it = obj_.find(key);
    return it != obj_.end() && !it->is_null();
}

const json& JsonFields::at(const std::string& key) const {
    const auto it = obj_.find(key);
    if (it == obj_.end() || it->is_null()) fail(key, "missing");
    return *it;
}

JsonFields JsonFields::object(const std::string& key) const {
    const json& v = at(key);
    if (!v.is_object()) fail(key, "expected an object, got " + short_dump(v));
    return JsonFields(v, source_, field(key));
}

int JsonFields::int_value(const json& v, const std::string& name, int lo, int hi) const {
    int64_t i = 0;
    if (v.is_number_integer()) {
        // Unsigned values above INT64_MAX would wrap in get<int64_t>(): out of any range.
        if (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(INT64_MAX))
            fail(name, "must be in " + range_str(lo, hi) + ", got " + short_dump(v));
        i = v.get<int64_t>();
    } else if (v.is_number_float() && integral(v.get<double>())) {
        i = int64_t(v.get<double>());  // some exports write 10000.0 for 10000
    } else {
        fail(name, "expected an integer, got " + short_dump(v));
    }
    if (i < lo || i > hi) fail(name, "must be in " + range_str(lo, hi) + ", got " + short_dump(v));
    return int(i);
}

int JsonFields::get_int(const std::string& key, int lo, int hi) const {
    return int_value(at(key), key, lo, hi);
}

int JsonFields::get_int_or(const std::string& key, int fallback, int lo, int hi) const {
    return has(key) ? get_int(key, lo, hi) : fallback;
}

double JsonFields::get_number(const std::string& key, double lo, double hi) const {
    const json& v = at(key);
    if (!v.is_number()) fail(key, "expected a number, got " + short_dump(v));
    const double d = v.get<double>();
    if (!std::isfinite(d) || d < lo || d > hi)
        fail(key,
             "must be in [" + number_str(lo) + ", " + number_str(hi) + "], got " + short_dump(v));
    return d;
}

double JsonFields::get_number_or(const std::string& key, double fallback, double lo,
                                 double hi) const {
    return has(key) ? get_number(key, lo, hi) : fallback;
}

bool JsonFields::get_bool(const std::string& key) const {
    const json& v = at(key);
    if (!v.is_boolean()) fail(key, "expected true or false, got " + short_dump(v));
    return v.get<bool>();
}

bool JsonFields::get_bool_or(const std::string& key, bool fallback) const {
    return has(key) ? get_bool(key) : fallback;
}

std::string JsonFields::get_string(const std::string& key) const {
    const json& v = at(key);
    if (!v.is_string()) fail(key, "expected a string, got " + short_dump(v));
    return v.get<std::string>();
}

std::string JsonFields::get_string_or(const std::string& key, const std::string& fallback) const {
    return has(key) ? get_string(key) : fallback;
}

std::vector<int> JsonFields::get_int_list(const std::string& key, int lo, int hi,
                                          size_t max_len) const {
    const json& v = at(key);
    if (!v.is_array() || v.empty())
        fail(key, "expected a non-empty list of integers, got " + short_dump(v));
    if (v.size() > max_len)
        fail(key, "has " + std::to_string(v.size()) + " entries; at most " +
                      std::to_string(max_len) + " are supported");
    std::vector<int> out;
    out.reserve(v.size());
    for (size_t i = 0; i < v.size(); ++i)
        out.push_back(int_value(v[i], key + "[" + std::to_string(i) + "]", lo, hi));
    return out;
}

std::vector<int> JsonFields::get_int_list_or(const std::string& key,
                                             const std::vector<int>& fallback, int lo, int hi,
                                             size_t max_len) const {
    return has(key) ? get_int_list(key, lo, hi, max_len) : fallback;
}

int64_t bounded_product(const std::vector<int>& values, int64_t limit) {
    int64_t p = 1;
    for (int v : values) {
        if (v <= 0 || p > limit / v) return -1;
        p *= v;
    }
    return p <= limit ? p : -1;
}

}  // namespace qwen3tts
