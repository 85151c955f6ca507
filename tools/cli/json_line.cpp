#include "json_line.hpp"

#include <cstdint>

#include "qwen3tts/error.hpp"

namespace qwen3tts::cli {

namespace {

class Parser {
  public:
    explicit Parser(const std::string& s) : s_(s) {}

    JsonObject object() {
        JsonObject out;
        space();
        expect('{', "'{' (a request is one JSON object per line)");
        space();
        if (peek() == '}') {
            ++i_;
        } else {
            for (;;) {
                space();
                if (peek() != '"') fail("a member name in double quotes");
                std::string key = string();
                for (const auto& m : out)
                    if (m.first == key) fail_at(i_, "\"" + key + "\" is given twice");
                space();
                expect(':', "':'");
                space();
                out.emplace_back(std::move(key), value());
                space();
                if (peek() == ',') {
                    ++i_;
                    continue;
                }
                expect('}', "',' or '}'");
                break;
            }
        }
        space();
        if (i_ != s_.size()) fail("the end of the line after the object");
        return out;
    }

  private:
    [[noreturn]] void fail_at(size_t at, const std::string& what) const {
        throw Error(ErrorCode::invalid_argument,
                    "JSON, column " + std::to_string(at + 1) + ": " + what);
    }
    [[noreturn]] void fail(const std::string& expected) const {
        fail_at(i_, "expected " + expected + (i_ < s_.size() ? "" : ", found the end of the line"));
    }
    char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
    void expect(char c, const std::string& what) {
        if (peek() != c) fail(what);
        ++i_;
    }
    void space() {
        while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\r')) ++i_;
    }
    bool literal(const char* word) {
        const std::string w(word);
        if (s_.compare(i_, w.size(), w) != 0) return false;
        i_ += w.size();
        return true;
    }

    JsonValue value() {
        JsonValue v;
        const char c = peek();
        if (c == '"') {
            v.kind = JsonValue::Kind::string;
            v.text = string();
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            v.kind = JsonValue::Kind::number;
            v.text = number();
        } else if (literal("true")) {
            v.kind = JsonValue::Kind::boolean;
            v.boolean = true;
        } else if (literal("false")) {
            v.kind = JsonValue::Kind::boolean;
        } else if (literal("null")) {
            v.kind = JsonValue::Kind::null;
        } else if (c == '{' || c == '[') {
            fail_at(i_, "nested objects and arrays are not request fields");
        } else {
            fail("a value (string, number, true, false or null)");
        }
        return v;
    }

    std::string number() {
        const size_t start = i_;
        auto digits = [&] {
            const size_t d = i_;
            while (peek() >= '0' && peek() <= '9') ++i_;
            if (i_ == d) fail("a digit");
        };
        if (peek() == '-') ++i_;
        if (peek() == '0')
            ++i_;
        else
            digits();
        if (peek() == '.') {
            ++i_;
            digits();
        }
        if (peek() == 'e' || peek() == 'E') {
            ++i_;
            if (peek() == '+' || peek() == '-') ++i_;
            digits();
        }
        return s_.substr(start, i_ - start);
    }

    uint32_t hex4() {
        uint32_t v = 0;
        for (int k = 0; k < 4; ++k) {
            const char c = peek();
            const int d = c >= '0' && c <= '9'   ? c - '0'
                          : c >= 'a' && c <= 'f' ? c - 'a' + 10
                          : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                                 : -1;
            if (d < 0) fail("4 hex digits after \\u");
            v = v * 16 + uint32_t(d);
            ++i_;
        }
        return v;
    }

    static void append_utf8(std::string& out, uint32_t cp) {
        if (cp < 0x80) {
            out += char(cp);
        } else if (cp < 0x800) {
            out += char(0xC0 | (cp >> 6));
            out += char(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            out += char(0xE0 | (cp >> 12));
            out += char(0x80 | ((cp >> 6) & 0x3F));
            out += char(0x80 | (cp & 0x3F));
        } else {
            out += char(0xF0 | (cp >> 18));
            out += char(0x80 | ((cp >> 12) & 0x3F));
            out += char(0x80 | ((cp >> 6) & 0x3F));
            out += char(0x80 | (cp & 0x3F));
        }
    }

    std::string string() {
        ++i_;  // the opening quote
        std::string out;
        for (;;) {
            if (i_ >= s_.size()) fail("a closing '\"'");
            const auto c = static_cast<unsigned char>(s_[i_]);
            if (c == '"') {
                ++i_;
                return out;
            }
            if (c < 0x20) fail_at(i_, "a control character inside a string (escape it)");
            if (c != '\\') {
                out += char(c);
                ++i_;
                continue;
            }
            ++i_;
            const char e = peek();
            ++i_;
            switch (e) {
                case '"':
                    out += '"';
                    break;
                case '\\':
                    out += '\\';
                    break;
                case '/':
                    out += '/';
                    break;
                case 'b':
                    out += '\b';
                    break;
                case 'f':
                    out += '\f';
                    break;
                case 'n':
                    out += '\n';
                    break;
                case 'r':
                    out += '\r';
                    break;
                case 't':
                    out += '\t';
                    break;
                case 'u': {
                    const size_t at = i_ - 2;
                    uint32_t cp = hex4();
                    if (cp >= 0xD800 && cp <= 0xDBFF) {
                        if (!literal("\\u")) fail_at(at, "a lone UTF-16 surrogate");
                        const uint32_t lo = hex4();
                        if (lo < 0xDC00 || lo > 0xDFFF) fail_at(at, "a lone UTF-16 surrogate");
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                        fail_at(at, "a lone UTF-16 surrogate");
                    }
                    append_utf8(out, cp);
                    break;
                }
                default:
                    fail_at(i_ - 2, "an unknown escape sequence");
            }
        }
    }

    const std::string& s_;
    size_t i_ = 0;
};

}  // namespace

JsonObject parse_json_object(const std::string& line) {
    return Parser(line).object();
}

}  // namespace qwen3tts::cli
