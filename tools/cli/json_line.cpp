#include "json_line.hpp"

#include <nlohmann/json.hpp>

#include "qwen3tts/error.hpp"

namespace qwen3tts::cli {

namespace {

using Sax = nlohmann::json_sax<nlohmann::json>;

[[noreturn]] void fail(const std::string& what) {
    throw Error(ErrorCode::invalid_argument, "JSON, " + what);
}

// nlohmann/json's strict parser (RFC 8259, UTF-8 checked) driven through its SAX interface, so
// that the members come out in the order written, numbers as written (integer fields are checked
// digit by digit, and a message quotes what the line said), and what a request cannot hold is
// refused as it is read: a nested object or array, a member given twice.
class FlatObject : public Sax {
  public:
    JsonObject members;

    bool null() override { return value(JsonValue{}); }
    bool boolean(bool b) override {
        JsonValue v;
        v.kind = JsonValue::Kind::boolean;
        v.boolean = b;
        return value(std::move(v));
    }
    bool number_integer(number_integer_t n) override { return number(std::to_string(n)); }
    bool number_unsigned(number_unsigned_t n) override { return number(std::to_string(n)); }
    bool number_float(number_float_t, const string_t& written) override { return number(written); }
    bool string(string_t& s) override {
        JsonValue v;
        v.kind = JsonValue::Kind::string;
        v.text = std::move(s);
        return value(std::move(v));
    }
    bool binary(binary_t&) override { return false; }  // never produced from JSON text
    bool start_object(std::size_t) override {
        if (depth_++ > 0) nested();
        return true;
    }
    bool end_object() override {
        --depth_;
        return true;
    }
    bool start_array(std::size_t) override { nested(); }  // never returns
    bool end_array() override { return true; }
    bool key(string_t& k) override {
        for (const auto& m : members)
            if (m.first == k) fail("\"" + k + "\" is given twice");
        key_ = std::move(k);
        return true;
    }
    bool parse_error(std::size_t position, const std::string&,
                     const nlohmann::detail::exception& e) override {
        // e.what() is "[json.exception.parse_error.101] parse error at line 1, column N: why".
        const std::string what = e.what();
        const size_t why = what.find(": ");
        fail("column " + std::to_string(position) + ": " +
             (why == std::string::npos ? what : what.substr(why + 2)));
    }

  private:
    [[noreturn]] static void nested() { fail("nested objects and arrays are not request fields"); }
    bool number(std::string written) {
        JsonValue v;
        v.kind = JsonValue::Kind::number;
        v.text = std::move(written);
        return value(std::move(v));
    }
    bool value(JsonValue v) {
        members.emplace_back(std::move(key_), std::move(v));
        return true;
    }

    int depth_ = 0;
    std::string key_;
};

}  // namespace

JsonObject parse_json_object(const std::string& line) {
    // Anything but an object is refused before parsing, with the reason.
    const size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] != '{')
        fail("column " + std::to_string(first == std::string::npos ? line.size() + 1 : first + 1) +
             ": expected '{' (a request is one JSON object per line)");
    FlatObject handler;
    nlohmann::json::sax_parse(line, &handler);
    return std::move(handler.members);
}

}  // namespace qwen3tts::cli
