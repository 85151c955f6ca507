// The HTTP layer's view of an accepted WebSocket (RFC 6455), free of any Boost type like
// http_message.hpp: a handler accepts an upgrade request with HttpResponder::accept_websocket
// and then talks through a WebSocket; websocket_session.cpp implements it on Boost.Beast.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

namespace qwen3tts::server {

// The server's side of one open WebSocket. Thread-safe: the frames go out on the server's I/O
// thread in call order. Once the connection has ended, every call does nothing.
class WebSocket {
  public:
    virtual ~WebSocket() = default;
    virtual void send_text(std::string message) = 0;
    virtual void send_binary(std::string message) = 0;
    // Sends the close frame after the frames already queued; nothing is sent after it.
    virtual void close(int code, std::string reason) = 0;
    // The idle limit: a client that sends no message for this long gets on_idle. 0 = none.
    virtual void set_idle_timeout(int seconds) = 0;
};

// The events of one WebSocket, delivered on the server's handler threads one at a time, in
// order (a handler needs no lock against itself, only against its own other threads).
class WebSocketHandler {
  public:
    virtual ~WebSocketHandler() = default;
    // The handshake is done; `ws` stays valid until on_closed.
    virtual void on_open(std::shared_ptr<WebSocket> ws) = 0;
    virtual void on_message(std::string data, bool text) = 0;
    // A message grew past its limit (WebSocketAccept::max_message_bytes, or
    // max_first_message_bytes for the first); no further message is read.
    virtual void on_oversized() = 0;
    // No message for the idle timeout.
    virtual void on_idle() = 0;
    // The connection has ended (closed by either side, lost, timed out, or the server stops);
    // always the last event, also when on_open never came (a failed handshake).
    virtual void on_closed() = 0;
};

struct WebSocketAccept {
    std::shared_ptr<WebSocketHandler> handler;
    std::string subprotocol;  // echoed in Sec-WebSocket-Protocol; "" = none
    size_t max_message_bytes = size_t(64) << 10;
    size_t max_first_message_bytes = 0;  // the first message's limit if larger
    int idle_timeout_s = 0;              // 0 = none
};

}  // namespace qwen3tts::server
