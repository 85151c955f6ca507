// The HTTP/1.1 server under `qwen3tts serve`: keep-alive, chunked streaming responses,
// timeouts, size limits, and cancellation of a response whose client went away. Built on
// Boost.Beast's request parser and Boost.Asio (docs/serving.md says why); those headers stay
// inside http_server.cpp, the one translation unit that pays for them.
//
// Threads: one I/O thread (the caller of run()) does all socket work; request handlers run on
// a small pool of handler threads, so a handler may block for a while (loading a voice) without
// stalling other connections. Handlers answer through an HttpResponder (http_message.hpp).
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

#include "server/http_message.hpp"

namespace qwen3tts::server {

struct HttpServerOptions {
    std::string host = "127.0.0.1";
    int port = 8000;  // 0 = any free port (port() tells which)
    size_t max_body_bytes = size_t(32) << 20;
    // Request bodies held in memory at once, all connections together (body_budget.hpp); a
    // request beyond it is answered 503 with Retry-After. At least max_body_bytes.
    size_t max_body_memory_bytes = size_t(256) << 20;
    size_t max_header_bytes = size_t(16) << 10;
    int read_timeout_s = 30;   // to receive a request, and keep-alive idle time between requests
    int write_timeout_s = 30;  // for each write of a response to complete
    size_t max_connections = 512;
    // Bytes of one response queued but not yet taken by the client; a client that reads
    // slower than this lets pile up is disconnected (its request cancelled).
    size_t max_buffered_bytes = size_t(16) << 20;
    int handler_threads = 4;
};

class HttpServer {
  public:
    // Binds and listens at once; throws Error(io) naming host:port when that fails.
    HttpServer(const HttpServerOptions& options, HttpHandler handler, ErrorBodyFn error_body,
               AccessLogFn access_log);
    ~HttpServer();
    HttpServer(const HttpServer&) = delete;
    HttpServer& operator=(const HttpServer&) = delete;

    int port() const;
    // Serves until stop(); returns once every connection is closed.
    void run();
    // Thread-safe. No new connections; open ones finish their current response and close.
    void stop_accepting();
    // Thread-safe. Connections close once their response is out (at once when idle); those
    // still open after `grace` are closed (cancelling their responses). run() then returns.
    void stop(std::chrono::milliseconds grace = std::chrono::milliseconds(0));

    struct Impl;  // http_server.cpp (its connections reach it)

  private:
    std::shared_ptr<Impl> impl_;
};

}  // namespace qwen3tts::server
