// Errors of the HTTP API, answered in OpenAI's shape:
//   {"error": {"message": "...", "type": "invalid_request_error", "param": "voice", "code": null}}
#pragma once

#include <stdexcept>
#include <string>

namespace qwen3tts::server {

class ApiError : public std::runtime_error {
  public:
    // type: "invalid_request_error" (4xx), "authentication_error" (401), "rate_limit_error"
    // (429), "server_error" (5xx); param: the request field at fault, "" = null.
    ApiError(int status, const std::string& message, std::string param = "", std::string code = "",
             std::string type = "");
    int status() const { return status_; }
    const std::string& param() const { return param_; }
    const std::string& code() const { return code_; }
    const std::string& type() const { return type_; }

  private:
    int status_;
    std::string param_, code_, type_;
};

// The error type OpenAI uses for a status.
const char* error_type_for_status(int status);
std::string error_json(int status, const std::string& message, const std::string& param = "",
                       const std::string& code = "", const std::string& type = "");
inline std::string error_json(const ApiError& e) {
    return error_json(e.status(), e.what(), e.param(), e.code(), e.type());
}

// A JSON string literal (with the quotes) of UTF-8 text; invalid bytes become U+FFFD.
std::string json_quote(const std::string& s);

}  // namespace qwen3tts::server
