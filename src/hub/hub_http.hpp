// A minimal blocking HTTP client over libcurl for the Hugging Face hub protocol: one request,
// no automatic redirects (the caller decides which redirect to follow and whether the token
// goes with it), response headers of the final response, and the body either collected or
// streamed to a sink. Network failures are reported in the response, never thrown. Only
// http and https URLs are requested (libcurl refuses every other protocol).
// Thread-safety: each call uses its own curl handle; safe to call from several threads.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace qwen3tts {

struct HttpRequest {
    std::string method = "GET";  // "GET" or "HEAD"
    std::string url;
    std::vector<std::string> headers;  // "Name: value"
    long timeout_s = 0;                // whole transfer; 0 = no limit (large downloads)
    long connect_timeout_s = 15;
    long low_speed_time_s = 60;  // abort when under 1 byte/s for this long (a stall)
    // Called with each chunk of a 2xx body; returns false to abort the transfer (e.g. the
    // disk is full). Without a sink the body is collected into HttpResponse::body. Bodies of
    // non-2xx responses are always collected (capped at 64 KiB) for error messages.
    std::function<bool(long status, const char* data, size_t n)> on_body;
};

struct HttpResponse {
    long status = 0;                             // 0 when no response was received
    std::map<std::string, std::string> headers;  // names lower-cased; last value wins
    std::string body;
    std::string redirect_url;      // absolute Location of a 3xx, else ""
    int curl_code = 0;             // CURLcode; 0 = the transfer completed
    std::string curl_error;        // libcurl's message when curl_code != 0
    bool aborted_by_sink = false;  // on_body returned false

    bool ok() const { return curl_code == 0 && status >= 200 && status < 300; }
    std::string header(const std::string& lower_name) const;
    // True for failures where no HTTP exchange happened at all: refused, unresolvable host,
    // connect timeout, TLS failure.
    bool unreachable() const;
};

HttpResponse http_perform(const HttpRequest& request);

// "scheme://host:port" of a URL (port made explicit), used to tell whether a redirect
// leaves the server the token was meant for. "" when the URL cannot be parsed.
std::string url_origin(const std::string& url);

// Percent-encodes everything but unreserved characters and the characters in `keep`.
std::string url_quote(const std::string& s, const std::string& keep = "");

}  // namespace qwen3tts
