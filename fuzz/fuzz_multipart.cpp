// multipart/form-data uploads of the server (voices): the first line is the Content-Type
// header value, the rest the body; any bytes must end in parts or an ApiError.
#include <string>

#include "server/api_error.hpp"
#include "server/multipart.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string input(reinterpret_cast<const char*>(data), size);
    const size_t eol = input.find('\n');
    const std::string type = input.substr(0, eol);
    const std::string body = eol == std::string::npos ? "" : input.substr(eol + 1);
    try {
        const std::string boundary = qwen3tts::server::multipart_boundary(type);
        size_t total = 0;
        for (const auto& part : qwen3tts::server::parse_multipart(body, boundary))
            total += part.data.size() + part.name.size() + part.filename.size();
        if (total > body.size()) __builtin_trap();  // parts are pieces of the body
    } catch (const qwen3tts::server::ApiError&) {
    }
    return 0;
}
