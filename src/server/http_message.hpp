// The HTTP layer's view of a request and of the response being sent, free of any HTTP library
// type, so that routing, parsing and the speech service compile without Boost (only
// http_server.cpp includes Beast).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "server/websocket.hpp"

namespace qwen3tts::server {

using HttpHeaders = std::vector<std::pair<std::string, std::string>>;

struct HttpRequest {
    std::string method;   // "GET", "POST", ...
    std::string target;   // as sent: path plus query
    std::string path;     // target up to '?'
    HttpHeaders headers;  // names in lower case
    std::string body;
    std::string remote;  // peer address, for the access log
    // The value of a header (name in lower case), or nullptr.
    const std::string* header(const std::string& name) const;
};

// One response, sent either whole (send) or as a chunked stream (begin, write..., end).
// Thread-safe: handlers call it from any thread; the bytes go out on the server's I/O thread
// in call order. The client may vanish at any time: then cancelled() turns true and the
// on_cancel callback runs once (on the I/O thread; it must not block).
class HttpResponder {
  public:
    virtual ~HttpResponder() = default;
    virtual void send(int status, HttpHeaders headers, std::string body) = 0;
    virtual void begin(int status, HttpHeaders headers) = 0;
    // Queues one chunk; false once the response is cancelled (the chunk is dropped).
    virtual bool write(std::string data) = 0;
    virtual void end() = 0;
    // Closes the connection without completing the response: a failure after the head went
    // out, which the client must see as a truncated body, not as a complete one.
    virtual void abort() = 0;
    virtual bool cancelled() const = 0;
    // Runs f once when the client disconnects, the write times out, or the server shuts down
    // before end(); at once when that has already happened.
    virtual void on_cancel(std::function<void()> f) = 0;
    // Answers a WebSocket upgrade request (101) instead of sending a response; the connection
    // then belongs to `accept.handler`. A request that is no valid WebSocket handshake gets
    // 400 (or 426) from the HTTP layer.
    virtual void accept_websocket(WebSocketAccept accept) = 0;
};

using HttpHandler = std::function<void(const HttpRequest&, std::shared_ptr<HttpResponder>)>;

// The body of an error response ({"error": {...}}): the HTTP layer answers protocol errors
// (413, 400 for unparsable requests, 431) itself in the API's error shape.
using ErrorBodyFn = std::function<std::string(int status, const std::string& message)>;

// One line per finished response: "remote method target status bytes ms".
using AccessLogFn = std::function<void(const std::string& line)>;

}  // namespace qwen3tts::server
