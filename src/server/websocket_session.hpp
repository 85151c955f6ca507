// The WebSocket side of a connection (RFC 6455 on Boost.Beast), taken over by http_server.cpp
// after a handler accepted an upgrade request. Only http_server.cpp and websocket_session.cpp
// include this header (it names Boost types).
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>

#include "server/websocket.hpp"

namespace qwen3tts::server {

struct WebSocketLimits {
    size_t max_buffered_bytes = size_t(16) << 20;  // queued to the client, not yet taken
    std::chrono::seconds write_timeout{30};        // for each frame, and the handshakes
};

// The connection's handle on its WebSocket; I/O thread only.
class WebSocketLink {
  public:
    virtual ~WebSocketLink() = default;
    // Ends the connection at once (no close handshake); the handler gets on_closed.
    virtual void terminate() = 0;
};

// Runs a handler's event on a handler thread.
using PostTask = std::function<void(std::function<void()>)>;
// Once the connection has ended: bytes sent after the handshake, and the close code sent or
// received (1006 when none was).
using WebSocketEndFn = std::function<void(size_t bytes_sent, int close_code)>;

// Answers the handshake of `request` on `socket` and runs the session; on I/O thread.
std::shared_ptr<WebSocketLink> start_websocket_session(
    boost::asio::ip::tcp::socket socket,
    boost::beast::http::request<boost::beast::http::string_body> request, WebSocketAccept accept,
    const WebSocketLimits& limits, PostTask post_task, WebSocketEndFn on_end);

}  // namespace qwen3tts::server
