// multipart/form-data bodies (RFC 7578), as browsers and HTTP clients send file uploads.
#pragma once

#include <string>
#include <vector>

namespace qwen3tts::server {

struct FormPart {
    std::string name;      // Content-Disposition name
    std::string filename;  // Content-Disposition filename, "" for a plain field
    std::string content_type;
    std::string data;
};

// The boundary from a Content-Type header value ("multipart/form-data; boundary=..."), or ""
// when the type is not multipart/form-data.
std::string multipart_boundary(const std::string& content_type);

// Splits `body` into its parts; throws ApiError(400) when it is not well formed.
std::vector<FormPart> parse_multipart(const std::string& body, const std::string& boundary);

}  // namespace qwen3tts::server
