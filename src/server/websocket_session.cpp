#include "server/websocket_session.hpp"

#include <algorithm>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/websocket.hpp>
#include <deque>
#include <mutex>

namespace qwen3tts::server {

namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
namespace websocket = boost::beast::websocket;
using tcp = net::ip::tcp;

constexpr int kAbnormalClose = 1006;  // RFC 6455 7.4.1: no close frame went either way
constexpr size_t kMaxReasonBytes = 123;

// Everything but deliver() and the WebSocket calls runs on the I/O thread; those post to it.
class Session : public WebSocket,
                public WebSocketLink,
                public std::enable_shared_from_this<Session> {
  public:
    Session(tcp::socket socket, WebSocketAccept accept, const WebSocketLimits& limits,
            PostTask post_task, WebSocketEndFn on_end)
        : executor_(socket.get_executor()),
          ws_(std::move(socket)),
          idle_timer_(executor_),
          write_timer_(executor_),
          accept_(std::move(accept)),
          limits_(limits),
          post_task_(std::move(post_task)),
          on_end_(std::move(on_end)),
          idle_s_(accept_.idle_timeout_s) {}

    void start(http::request<http::string_body> request) {
        auto timeouts = websocket::stream_base::timeout::suggested(beast::role_type::server);
        timeouts.handshake_timeout = limits_.write_timeout;  // the opening and the closing one
        ws_.set_option(timeouts);
        const std::string protocol = accept_.subprotocol;
        ws_.set_option(websocket::stream_base::decorator([protocol](websocket::response_type& r) {
            if (!protocol.empty()) r.set(http::field::sec_websocket_protocol, protocol);
        }));
        // The limit (message_limit()) is enforced in on_read, so that the handler can
        // tell the client why; Beast's own (0: none) would close at the frame header at once.
        // read() never asks for more than the limit, so nothing larger is ever buffered.
        ws_.read_message_max(0);
        auto req = std::make_shared<http::request<http::string_body>>(std::move(request));
        ws_.async_accept(*req, [self = shared_from_this(), req](beast::error_code ec) {
            if (ec) return self->end();
            self->deliver([self](WebSocketHandler& h) { h.on_open(self); });
            self->arm_idle();
            self->read();
        });
    }

    void send_text(std::string message) override { post_frame(std::move(message), true); }
    void send_binary(std::string message) override { post_frame(std::move(message), false); }
    void close(int code, std::string reason) override {
        if (reason.size() > kMaxReasonBytes) reason.resize(kMaxReasonBytes);
        net::post(executor_, [self = shared_from_this(), code, reason = std::move(reason)] {
            if (self->ended_ || self->close_queued_) return;
            self->close_queued_ = true;
            self->close_code_ = code;
            self->close_reason_ = reason;
            self->write_next();
        });
    }
    void set_idle_timeout(int seconds) override {
        net::post(executor_, [self = shared_from_this(), seconds] {
            self->idle_s_ = seconds;
            self->arm_idle();
        });
    }
    void terminate() override { end(); }

  private:
    struct Frame {
        std::string data;
        bool text;
    };

    size_t message_limit() const {
        return messages_ == 0 ? std::max(accept_.max_message_bytes, accept_.max_first_message_bytes)
                              : accept_.max_message_bytes;
    }

    void read() {
        const size_t limit = message_limit();
        const size_t room = limit + 1 - std::min(in_.size(), limit);
        ws_.async_read_some(
            in_, std::min(room, size_t(64) << 10),
            [self = shared_from_this()](beast::error_code ec, size_t) { self->on_read(ec); });
    }

    void on_read(beast::error_code ec) {
        if (ended_) return;
        if (ec) return end();
        if (in_.size() > message_limit()) {
            // Reading stops here: the rest of the message is never buffered.
            in_.consume(in_.size());
            return deliver([](WebSocketHandler& h) { h.on_oversized(); });
        }
        if (!ws_.is_message_done()) return read();
        std::string message = beast::buffers_to_string(in_.data());
        in_.consume(in_.size());
        const bool text = ws_.got_text();
        ++messages_;
        arm_idle();
        deliver([message = std::move(message), text](WebSocketHandler& h) mutable {
            h.on_message(std::move(message), text);
        });
        read();
    }

    void arm_idle() {
        const unsigned generation = ++idle_generation_;
        idle_timer_.cancel();
        if (ended_ || idle_s_ <= 0) return;
        idle_timer_.expires_after(std::chrono::seconds(idle_s_));
        idle_timer_.async_wait([self = shared_from_this(), generation](beast::error_code ec) {
            if (ec || self->ended_ || generation != self->idle_generation_) return;
            self->deliver([](WebSocketHandler& h) { h.on_idle(); });
        });
    }

    void post_frame(std::string data, bool text) {
        net::post(executor_, [self = shared_from_this(), data = std::move(data), text]() mutable {
            if (self->ended_ || self->close_queued_) return;
            self->buffered_ += data.size();
            self->out_.push_back({std::move(data), text});
            if (self->buffered_ > self->limits_.max_buffered_bytes) return self->end();  // too slow
            self->write_next();
        });
    }

    void write_next() {
        if (writing_ || closing_ || ended_) return;
        if (out_.empty()) {
            if (close_queued_) start_close();
            return;
        }
        writing_ = true;
        const unsigned generation = ++write_generation_;
        write_timer_.expires_after(limits_.write_timeout);
        write_timer_.async_wait([self = shared_from_this(), generation](beast::error_code ec) {
            if (!ec && generation == self->write_generation_ && self->writing_) self->end();
        });
        ws_.text(out_.front().text);
        ws_.async_write(net::buffer(out_.front().data),
                        [self = shared_from_this()](beast::error_code ec, size_t n) {
                            self->writing_ = false;
                            self->write_timer_.cancel();
                            if (self->ended_) return;
                            if (ec) return self->end();
                            self->bytes_sent_ += n;
                            self->buffered_ -= self->out_.front().data.size();
                            self->out_.pop_front();
                            self->write_next();
                        });
    }

    void start_close() {
        closing_ = true;
        const websocket::close_reason reason(static_cast<websocket::close_code>(close_code_),
                                             close_reason_);
        ws_.async_close(reason, [self = shared_from_this()](beast::error_code) { self->end(); });
    }

    // The connection is over, whichever way: the handler hears it last.
    void end() {
        if (ended_) return;
        ended_ = true;
        ++idle_generation_;
        idle_timer_.cancel();
        write_timer_.cancel();
        beast::error_code ec;
        auto& socket = beast::get_lowest_layer(ws_).socket();
        socket.shutdown(tcp::socket::shutdown_both, ec);
        socket.close(ec);
        out_.clear();
        int code = kAbnormalClose;
        if (closing_) {
            code = close_code_;
        } else if (ws_.reason().code != websocket::close_code::none) {
            code = ws_.reason().code;
        }
        deliver([](WebSocketHandler& h) { h.on_closed(); });
        accept_.handler.reset();  // the queued events hold it as long as they need it
        if (on_end_) on_end_(bytes_sent_, code);
        on_end_ = nullptr;
    }

    // Handler events run on handler threads one at a time, in order.
    void deliver(std::function<void(WebSocketHandler&)> event) {
        if (!accept_.handler) return;
        {
            const std::lock_guard<std::mutex> lock(events_mutex_);
            events_.push_back({accept_.handler, std::move(event)});
            if (draining_) return;
            draining_ = true;
        }
        post_task_([self = shared_from_this()] { self->drain(); });
    }

    void drain() {
        for (;;) {
            Event e;
            {
                const std::lock_guard<std::mutex> lock(events_mutex_);
                if (events_.empty()) {
                    draining_ = false;
                    return;
                }
                e = std::move(events_.front());
                events_.pop_front();
            }
            try {
                e.run(*e.handler);
            } catch (const std::exception&) {
                net::post(executor_, [self = shared_from_this()] { self->end(); });
            }
        }
    }

    struct Event {
        std::shared_ptr<WebSocketHandler> handler;
        std::function<void(WebSocketHandler&)> run;
    };

    net::any_io_executor executor_;
    websocket::stream<beast::tcp_stream> ws_;
    net::steady_timer idle_timer_;
    net::steady_timer write_timer_;
    WebSocketAccept accept_;
    WebSocketLimits limits_;
    PostTask post_task_;
    WebSocketEndFn on_end_;
    int idle_s_;
    unsigned idle_generation_ = 0;
    size_t messages_ = 0;  // complete messages read
    unsigned write_generation_ = 0;
    beast::flat_buffer in_;
    std::deque<Frame> out_;
    size_t buffered_ = 0;
    size_t bytes_sent_ = 0;
    bool writing_ = false;
    bool close_queued_ = false;
    bool closing_ = false;
    bool ended_ = false;
    int close_code_ = kAbnormalClose;
    std::string close_reason_;
    std::mutex events_mutex_;
    std::deque<Event> events_;
    bool draining_ = false;
};

}  // namespace

std::shared_ptr<WebSocketLink> start_websocket_session(tcp::socket socket,
                                                       http::request<http::string_body> request,
                                                       WebSocketAccept accept,
                                                       const WebSocketLimits& limits,
                                                       PostTask post_task, WebSocketEndFn on_end) {
    auto s = std::make_shared<Session>(std::move(socket), std::move(accept), limits,
                                       std::move(post_task), std::move(on_end));
    s->start(std::move(request));
    return s;
}

}  // namespace qwen3tts::server
