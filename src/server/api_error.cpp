#include "server/api_error.hpp"

#include <cstdio>

namespace qwen3tts::server {

ApiError::ApiError(int status, const std::string& message, std::string param, std::string code,
                   std::string type)
    : std::runtime_error(message),
      status_(status),
      param_(std::move(param)),
      code_(std::move(code)),
      type_(type.empty() ? error_type_for_status(status) : std::move(type)) {}

const char* error_type_for_status(int status) {
    if (status == 401) return "authentication_error";
    if (status == 404) return "not_found_error";
    if (status == 429) return "rate_limit_error";
    if (status >= 500) return "server_error";
    return "invalid_request_error";
}

namespace {

// Length of the valid UTF-8 sequence at s[i], or 0.
size_t utf8_length(const std::string& s, size_t i) {
    const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char c = b(i);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return 0;
    for (size_t k = 1; k < n; ++k)
        if ((b(i + k) & 0xC0) != 0x80) return 0;
    return n;
}

}  // namespace

std::string json_quote(const std::string& s) {
    std::string out = "\"";
    for (size_t i = 0; i < s.size();) {
        const unsigned char c = static_cast<unsigned char>(s[i]);
        const size_t n = utf8_length(s, i);
        if (n == 0) {
            out += "\\ufffd";
            ++i;
            continue;
        }
        if (c == '"' || c == '\\') {
            out += '\\';
            out += char(c);
        } else if (c == '\n') {
            out += "\\n";
        } else if (c < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out += buf;
        } else {
            out.append(s, i, n);
        }
        i += n;
    }
    return out + "\"";
}

std::string error_json(int status, const std::string& message, const std::string& param,
                       const std::string& code, const std::string& type) {
    const auto str_or_null = [](const std::string& v) {
        return v.empty() ? std::string("null") : json_quote(v);
    };
    return "{\"error\":{\"message\":" + json_quote(message) +
           ",\"type\":" + json_quote(type.empty() ? error_type_for_status(status) : type) +
           ",\"param\":" + str_or_null(param) + ",\"code\":" + str_or_null(code) + "}}";
}

}  // namespace qwen3tts::server
