#include "server/multipart.hpp"

#include "server/api_error.hpp"

namespace qwen3tts::server {

namespace {

std::string lower(std::string s) {
    for (auto& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

[[noreturn]] void malformed(const std::string& why) {
    throw ApiError(400, "malformed multipart/form-data body: " + why, "", "invalid_multipart");
}

// The value of `key=` in a header value such as `form-data; name="a"; filename="b.wav"`.
std::string parameter(const std::string& value, const std::string& key) {
    size_t pos = 0;
    while ((pos = value.find(';', pos)) != std::string::npos) {
        ++pos;
        while (pos < value.size() && value[pos] == ' ') ++pos;
        if (lower(value.substr(pos, key.size() + 1)) != key + "=") continue;
        pos += key.size() + 1;
        if (pos < value.size() && value[pos] == '"') {
            const size_t end = value.find('"', pos + 1);
            if (end == std::string::npos) malformed("unterminated quoted " + key);
            return value.substr(pos + 1, end - pos - 1);
        }
        const size_t end = value.find(';', pos);
        return value.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    }
    return "";
}

}  // namespace

std::string multipart_boundary(const std::string& content_type) {
    if (lower(content_type).rfind("multipart/form-data", 0) != 0) return "";
    return parameter(content_type, "boundary");
}

std::vector<FormPart> parse_multipart(const std::string& body, const std::string& boundary) {
    if (boundary.empty() || boundary.size() > 200) malformed("no usable boundary");
    const std::string delimiter = "--" + boundary;
    std::vector<FormPart> parts;
    size_t pos = body.find(delimiter);
    if (pos == std::string::npos) malformed("the boundary never occurs");
    for (;;) {
        pos += delimiter.size();
        if (body.compare(pos, 2, "--") == 0) return parts;  // the closing delimiter
        if (body.compare(pos, 2, "\r\n") != 0) malformed("a delimiter is not followed by CRLF");
        pos += 2;
        const size_t head_end = body.find("\r\n\r\n", pos);
        if (head_end == std::string::npos) malformed("a part has no end of headers");
        FormPart part;
        size_t line = pos;
        while (line < head_end) {
            size_t eol = body.find("\r\n", line);
            if (eol == std::string::npos || eol > head_end) eol = head_end;
            const std::string h = body.substr(line, eol - line);
            const size_t colon = h.find(':');
            if (colon != std::string::npos) {
                const std::string name = lower(h.substr(0, colon));
                std::string value = h.substr(colon + 1);
                while (!value.empty() && value.front() == ' ') value.erase(0, 1);
                if (name == "content-disposition") {
                    part.name = parameter(value, "name");
                    part.filename = parameter(value, "filename");
                } else if (name == "content-type") {
                    part.content_type = value;
                }
            }
            line = eol + 2;
        }
        const size_t data_start = head_end + 4;
        const size_t next = body.find("\r\n" + delimiter, data_start);
        if (next == std::string::npos) malformed("a part is not closed by the boundary");
        part.data = body.substr(data_start, next - data_start);
        if (part.name.empty()) malformed("a part has no name");
        parts.push_back(std::move(part));
        pos = next + 2;
    }
}

}  // namespace qwen3tts::server
