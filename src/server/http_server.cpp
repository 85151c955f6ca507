#include "server/http_server.hpp"

#include <sys/socket.h>

#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/status.hpp>
#include <boost/beast/http/string_body.hpp>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <vector>

#include "qwen3tts/error.hpp"
#include "server/body_budget.hpp"
#include "server/websocket_session.hpp"

namespace qwen3tts::server {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = net::ip::tcp;
using Clock = std::chrono::steady_clock;

const std::string* HttpRequest::header(const std::string& name) const {
    for (const auto& h : headers)
        if (h.first == name) return &h.second;
    return nullptr;
}

namespace {

std::string lower(std::string s) {
    for (auto& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// Handler threads: requests are handed over in arrival order.
class TaskPool {
  public:
    explicit TaskPool(int n) {
        for (int i = 0; i < n; ++i) threads_.emplace_back([this] { loop(); });
    }
    ~TaskPool() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stop_ = true;
        }
        cv_.notify_all();
        for (auto& t : threads_) t.join();
    }
    void post(std::function<void()> task) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            tasks_.push_back(std::move(task));
        }
        cv_.notify_one();
    }

  private:
    void loop() {
        for (;;) {
            std::function<void()> task;
            {
                std::unique_lock<std::mutex> lock(mutex_);
                cv_.wait(lock, [&] { return stop_ || !tasks_.empty(); });
                if (tasks_.empty()) return;
                task = std::move(tasks_.front());
                tasks_.pop_front();
            }
            task();
        }
    }
    std::mutex mutex_;
    std::condition_variable cv_;
    std::deque<std::function<void()>> tasks_;
    bool stop_ = false;
    std::vector<std::thread> threads_;
};

class Connection;

}  // namespace

struct HttpServer::Impl {
    HttpServerOptions options;
    HttpHandler handler;
    ErrorBodyFn error_body;
    AccessLogFn access_log;
    net::io_context io{1};
    net::executor_work_guard<net::io_context::executor_type> work{io.get_executor()};
    tcp::acceptor acceptor{io};
    net::steady_timer stop_timer{io};         // stop(): closes what is still open after the grace
    std::unique_ptr<BodyBudget> body_budget;  // before connections: their leases point here
    std::set<std::shared_ptr<Connection>> connections;  // touched on the I/O thread only
    bool stopping = false;                              // I/O thread only
    std::unique_ptr<TaskPool> tasks;

    void accept();
};

namespace {

class Connection : public std::enable_shared_from_this<Connection> {
  public:
    Connection(tcp::socket socket, HttpServer::Impl& server)
        : stream_(std::move(socket)), server_(server) {
        beast::error_code ec;
        const auto ep = stream_.socket().remote_endpoint(ec);
        remote_ = ec ? "?" : ep.address().to_string();
    }

    void start() { read_request(); }
    // Whether `id` is the response in progress (a late call of an earlier request's responder
    // must not touch the next request on a kept-alive connection).
    bool current(unsigned id) const { return responding_ && response_id_ == id; }
    void close();
    // The server stops: an idle connection closes now, a busy one after its response.
    void stop_after_response() {
        if (!responding_) close();
    }

    // Called on the I/O thread by the responder.
    void queue_head(int status, const HttpHeaders& headers, const std::string* body);
    void queue_chunk(std::string data);
    void queue_end();
    void cancel_response();
    void upgrade(WebSocketAccept accept);

  private:
    void read_request();
    void on_header(beast::error_code ec);
    void on_body(beast::error_code ec);
    void protocol_error(int status, const std::string& message, HttpHeaders headers = {});
    void dispatch();
    void watch_peer();
    void write_next();
    void finish_response();
    void linger_close();
    void websocket_ended(size_t bytes_sent, int close_code);

    beast::tcp_stream stream_;
    HttpServer::Impl& server_;
    beast::flat_buffer buffer_;
    std::optional<http::request_parser<http::string_body>> parser_;
    std::shared_ptr<BodyBudget::Lease> body_lease_;  // the request's body, until its handler ends
    std::string remote_;

    // The response in progress.
    unsigned response_id_ = 0;
    bool responding_ = false;
    bool chunked_ = true;     // HTTP/1.0 clients get the raw body and a close instead
    bool keep_alive_ = true;  // after this response
    std::shared_ptr<class Responder> responder_;
    std::deque<std::string> out_;
    size_t buffered_ = 0;
    bool writing_ = false;
    bool end_queued_ = false;
    unsigned watch_generation_ = 0;
    bool watching_ = false;
    // Access log.
    std::string method_, target_;
    int status_ = 0;
    size_t bytes_sent_ = 0;
    Clock::time_point started_;
    // After an upgrade: the WebSocket owns the socket; the connection stays in the server's
    // set (so that stop() reaches it) until the WebSocket ends.
    std::shared_ptr<WebSocketLink> ws_;
};

class Responder : public HttpResponder {
  public:
    Responder(std::weak_ptr<Connection> conn, unsigned id, net::io_context::executor_type executor)
        : conn_(std::move(conn)), id_(id), executor_(executor) {}

    void send(int status, HttpHeaders headers, std::string body) override {
        if (!claim_start()) return;
        post([status, headers = std::move(headers), body = std::move(body)](Connection& c) {
            c.queue_head(status, headers, &body);
        });
    }
    void begin(int status, HttpHeaders headers) override {
        if (!claim_start()) return;
        post([status, headers = std::move(headers)](Connection& c) {
            c.queue_head(status, headers, nullptr);
        });
    }
    bool write(std::string data) override {
        if (cancelled_) return false;
        if (!data.empty())
            post([data = std::move(data)](Connection& c) mutable {
                c.queue_chunk(std::move(data));
            });
        return !cancelled_;
    }
    void end() override {
        post([](Connection& c) { c.queue_end(); });
    }
    void abort() override {
        post([](Connection& c) {
            c.cancel_response();
            c.close();
        });
    }
    void accept_websocket(WebSocketAccept accept) override {
        if (!claim_start()) return;
        post([accept = std::move(accept)](Connection& c) mutable { c.upgrade(std::move(accept)); });
    }
    bool cancelled() const override { return cancelled_; }
    void on_cancel(std::function<void()> f) override {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            if (!cancelled_) {
                on_cancel_.push_back(std::move(f));
                return;
            }
        }
        f();
    }
    bool started() const { return started_; }

    // I/O thread: the client is gone or the server closes the connection.
    void cancel() {
        std::vector<std::function<void()>> callbacks;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            if (cancelled_) return;
            cancelled_ = true;
            callbacks.swap(on_cancel_);
        }
        for (auto& f : callbacks) f();
    }

  private:
    bool claim_start() {
        bool expected = false;
        return started_.compare_exchange_strong(expected, true);
    }
    template <class F>
    void post(F f) {
        net::post(executor_, [conn = conn_, id = id_, f = std::move(f)]() mutable {
            const auto c = conn.lock();
            if (c && c->current(id)) f(*c);
        });
    }

    std::weak_ptr<Connection> conn_;
    unsigned id_;
    net::io_context::executor_type executor_;
    std::atomic<bool> started_{false};
    std::atomic<bool> cancelled_{false};
    std::mutex mutex_;
    std::vector<std::function<void()>> on_cancel_;
};

std::string status_line(int status) {
    const auto reason = http::obsolete_reason(http::int_to_status(unsigned(status)));
    return "HTTP/1.1 " + std::to_string(status) + " " + std::string(reason.data(), reason.size()) +
           "\r\n";
}

void Connection::read_request() {
    parser_.emplace();
    parser_->header_limit(std::uint32_t(server_.options.max_header_bytes));
    parser_->body_limit(std::uint64_t(server_.options.max_body_bytes));
    stream_.expires_after(std::chrono::seconds(server_.options.read_timeout_s));
    http::async_read_header(
        stream_, buffer_, *parser_,
        [self = shared_from_this()](beast::error_code ec, size_t) { self->on_header(ec); });
}

void Connection::on_header(beast::error_code ec) {
    if (ec == http::error::body_limit)
        return protocol_error(413, "the request body is larger than the limit of " +
                                       std::to_string(server_.options.max_body_bytes) + " bytes");
    if (ec == http::error::header_limit)
        return protocol_error(431, "the request headers are larger than the limit of " +
                                       std::to_string(server_.options.max_header_bytes) + " bytes");
    if (ec == http::error::end_of_stream || ec == net::error::eof || ec == beast::error::timeout ||
        ec == net::error::operation_aborted || ec == net::error::connection_reset)
        return close();
    if (ec) return protocol_error(400, "malformed HTTP request: " + ec.message());
    if (server_.stopping) return close();
    // A chunked body's size is unknown until it has arrived: it may grow to the limit.
    const size_t body_bytes = parser_->chunked() ? server_.options.max_body_bytes
                                                 : size_t(parser_->content_length().value_or(0));
    body_lease_ = server_.body_budget->reserve(body_bytes);
    if (!body_lease_)
        return protocol_error(503,
                              "the server holds too many request bodies in memory (limit " +
                                  std::to_string(server_.body_budget->limit()) +
                                  " bytes, --max-body-memory-mb); retry shortly",
                              {{"Retry-After", "1"}});
    const auto& req = parser_->get();
    auto read_body = [self = shared_from_this()] {
        http::async_read(self->stream_, self->buffer_, *self->parser_,
                         [self](beast::error_code e, size_t) { self->on_body(e); });
    };
    const auto expect = req.find(http::field::expect);
    if (expect != req.end() && lower(std::string(expect->value())) == "100-continue" &&
        !parser_->is_done()) {
        auto line = std::make_shared<std::string>("HTTP/1.1 100 Continue\r\n\r\n");
        net::async_write(stream_, net::buffer(*line),
                         [self = shared_from_this(), line, read_body](beast::error_code e, size_t) {
                             if (e) return self->close();
                             read_body();
                         });
        return;
    }
    read_body();
}

void Connection::on_body(beast::error_code ec) {
    if (ec == http::error::body_limit)
        return protocol_error(413, "the request body is larger than the limit of " +
                                       std::to_string(server_.options.max_body_bytes) + " bytes");
    if (ec == http::error::end_of_stream || ec == net::error::eof || ec == beast::error::timeout ||
        ec == net::error::operation_aborted || ec == net::error::connection_reset)
        return close();
    if (ec) return protocol_error(400, "malformed HTTP request: " + ec.message());
    dispatch();
}

void Connection::protocol_error(int status, const std::string& message, HttpHeaders headers) {
    method_ =
        parser_ && parser_->is_header_done() ? std::string(parser_->get().method_string()) : "-";
    target_ = parser_ && parser_->is_header_done() ? std::string(parser_->get().target()) : "-";
    started_ = Clock::now();
    status_ = 0;
    bytes_sent_ = 0;
    ++response_id_;
    responding_ = true;
    chunked_ = true;
    keep_alive_ = false;  // the rest of the stream cannot be trusted
    responder_.reset();
    body_lease_.reset();  // the body is not read
    end_queued_ = false;
    const std::string body = server_.error_body(status, message);
    headers.emplace(headers.begin(), "Content-Type", "application/json");
    queue_head(status, headers, &body);
}

void Connection::dispatch() {
    auto& req = parser_->get();
    HttpRequest r;
    r.method = std::string(req.method_string());
    r.target = std::string(req.target());
    r.path = r.target.substr(0, r.target.find('?'));
    for (const auto& f : req)
        r.headers.emplace_back(lower(std::string(f.name_string())), f.value());
    r.body = std::move(req.body());
    r.remote = remote_;
    method_ = r.method;
    target_ = r.target;
    started_ = Clock::now();
    status_ = 0;
    bytes_sent_ = 0;
    ++response_id_;
    responding_ = true;
    chunked_ = req.version() >= 11;
    keep_alive_ = req.keep_alive() && chunked_;
    end_queued_ = false;
    stream_.expires_never();
    auto responder =
        std::make_shared<Responder>(weak_from_this(), response_id_, server_.io.get_executor());
    responder_ = responder;
    watch_peer();
    auto handler = server_.handler;
    auto error_body = server_.error_body;
    server_.tasks->post([handler, error_body, r = std::move(r), responder,
                         lease = std::move(body_lease_)] {  // released after the handler
        try {
            handler(r, responder);
        } catch (const std::exception& e) {
            if (!responder->started())
                responder->send(500, {{"Content-Type", "application/json"}},
                                error_body(500, std::string("internal error: ") + e.what()));
        }
    });
}

// While a response is being made, a readable socket means the client closed it (recv peeks 0
// bytes) or sent its next request early (left in the kernel for the next read).
void Connection::watch_peer() {
    const unsigned generation = ++watch_generation_;
    watching_ = true;
    stream_.socket().async_wait(
        tcp::socket::wait_read, [self = shared_from_this(), generation](beast::error_code ec) {
            if (generation != self->watch_generation_) return;
            self->watching_ = false;
            if (ec == net::error::operation_aborted) return;
            if (!ec && self->buffer_.size() == 0) {
                char c;
                const ssize_t n =
                    ::recv(self->stream_.socket().native_handle(), &c, 1, MSG_PEEK | MSG_DONTWAIT);
                if (n > 0 || (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))) return;
            } else if (!ec) {
                return;
            }
            self->cancel_response();
            self->close();
        });
}

void Connection::queue_head(int status, const HttpHeaders& headers, const std::string* body) {
    if (!responding_ || status_ != 0) return;
    status_ = status;
    std::string head = status_line(status);
    for (const auto& h : headers) head += h.first + ": " + h.second + "\r\n";
    if (server_.stopping) keep_alive_ = false;
    if (body) {
        head += "Content-Length: " + std::to_string(body->size()) + "\r\n";
    } else if (chunked_) {
        head += "Transfer-Encoding: chunked\r\n";
    } else {
        keep_alive_ = false;  // HTTP/1.0: the end of the body is the end of the connection
    }
    if (!keep_alive_) head += "Connection: close\r\n";
    head += "\r\n";
    if (body) head += *body;
    buffered_ += head.size();
    out_.push_back(std::move(head));
    if (body) end_queued_ = true;
    write_next();
}

void Connection::queue_chunk(std::string data) {
    if (!responding_ || status_ == 0 || end_queued_) return;
    std::string piece;
    if (chunked_) {
        char size[24];
        std::snprintf(size, sizeof size, "%zx\r\n", data.size());
        piece = size + data + "\r\n";
    } else {
        piece = std::move(data);
    }
    buffered_ += piece.size();
    out_.push_back(std::move(piece));
    if (buffered_ > server_.options.max_buffered_bytes) {
        cancel_response();  // the client does not keep up
        return close();
    }
    write_next();
}

void Connection::queue_end() {
    if (!responding_ || status_ == 0 || end_queued_) return;
    end_queued_ = true;
    if (chunked_) {
        out_.emplace_back("0\r\n\r\n");
        buffered_ += 5;
    }
    write_next();
}

void Connection::write_next() {
    if (writing_) return;
    if (out_.empty()) {
        if (end_queued_) finish_response();
        return;
    }
    writing_ = true;
    stream_.expires_after(std::chrono::seconds(server_.options.write_timeout_s));
    net::async_write(stream_, net::buffer(out_.front()),
                     [self = shared_from_this()](beast::error_code ec, size_t n) {
                         self->writing_ = false;
                         self->stream_.expires_never();
                         if (ec) {
                             self->cancel_response();
                             return self->close();
                         }
                         self->bytes_sent_ += n;
                         self->buffered_ -= self->out_.front().size();
                         self->out_.pop_front();
                         self->write_next();
                     });
}

void Connection::finish_response() {
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - started_).count();
    if (server_.access_log) {
        char line[96];
        std::snprintf(line, sizeof line, " %d %zu %.0fms", status_, bytes_sent_, ms);
        server_.access_log(remote_ + " " + method_ + " " + target_ + line);
    }
    responding_ = false;
    responder_.reset();
    if (!keep_alive_ || server_.stopping) return linger_close();
    if (watching_) {
        ++watch_generation_;  // the cancelled wait's completion is ignored
        watching_ = false;
        beast::error_code ec;
        stream_.socket().cancel(ec);
    }
    read_request();
}

// After a final response, the client may still be sending (a body over the limit): shut down
// our side and drain a little, so that the client reads the response instead of a reset.
void Connection::linger_close() {
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
    if (ec) return close();
    auto scratch = std::make_shared<std::vector<char>>(64 * 1024);
    auto drained = std::make_shared<size_t>(0);
    stream_.expires_after(std::chrono::seconds(2));
    auto drain = std::make_shared<std::function<void()>>();
    *drain = [self = shared_from_this(), scratch, drained, drain] {
        self->stream_.async_read_some(net::buffer(*scratch),
                                      [self, drained, drain](beast::error_code e, size_t n) {
                                          *drained += n;
                                          if (e || *drained > (size_t(1) << 20)) {
                                              *drain = nullptr;  // breaks the cycle
                                              return self->close();
                                          }
                                          (*drain)();
                                      });
    };
    (*drain)();
}

void Connection::cancel_response() {
    if (responder_) responder_->cancel();
}

void Connection::upgrade(WebSocketAccept accept) {
    if (!responding_ || status_ != 0) return;
    status_ = 101;
    if (watching_) {
        ++watch_generation_;  // the socket moves away: its wait's completion is ignored
        watching_ = false;
        beast::error_code ec;
        stream_.socket().cancel(ec);
    }
    responder_.reset();
    WebSocketLimits limits;
    limits.max_buffered_bytes = server_.options.max_buffered_bytes;
    limits.write_timeout = std::chrono::seconds(server_.options.write_timeout_s);
    auto& server = server_;
    ws_ = start_websocket_session(
        stream_.release_socket(), parser_->release(), std::move(accept), limits,
        [&server](std::function<void()> task) { server.tasks->post(std::move(task)); },
        [self = shared_from_this()](size_t bytes, int code) {
            self->websocket_ended(bytes, code);
        });
}

// One access log line per WebSocket, when it ends: status 101, the bytes sent and the close code.
void Connection::websocket_ended(size_t bytes_sent, int close_code) {
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - started_).count();
    if (server_.access_log) {
        char line[96];
        std::snprintf(line, sizeof line, " 101 %zu %.0fms close %d", bytes_sent, ms, close_code);
        server_.access_log(remote_ + " " + method_ + " " + target_ + line);
    }
    net::post(server_.io, [self = shared_from_this()] { self->close(); });
}

void Connection::close() {
    if (auto ws = std::move(ws_)) ws->terminate();
    cancel_response();
    responding_ = false;
    responder_.reset();
    body_lease_.reset();
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ec);
    stream_.socket().close(ec);
    server_.connections.erase(shared_from_this());
    if (server_.stopping && server_.connections.empty()) server_.stop_timer.cancel();
}

}  // namespace

void HttpServer::Impl::accept() {
    acceptor.async_accept([this](beast::error_code ec, tcp::socket socket) {
        if (ec == net::error::operation_aborted || !acceptor.is_open()) return;
        if (!ec && connections.size() < options.max_connections && !stopping) {
            auto c = std::make_shared<Connection>(std::move(socket), *this);
            connections.insert(c);
            c->start();
        }
        accept();
    });
}

HttpServer::HttpServer(const HttpServerOptions& options, HttpHandler handler,
                       ErrorBodyFn error_body, AccessLogFn access_log)
    : impl_(std::make_shared<Impl>()) {
    impl_->options = options;
    impl_->handler = std::move(handler);
    impl_->error_body = std::move(error_body);
    impl_->access_log = std::move(access_log);
    if (options.max_body_memory_bytes < options.max_body_bytes)
        throw Error(ErrorCode::invalid_argument,
                    "--max-body-memory-mb (" + std::to_string(options.max_body_memory_bytes >> 20) +
                        " MiB) must be at least --max-body-mb (" +
                        std::to_string(options.max_body_bytes >> 20) + " MiB)");
    impl_->body_budget = std::make_unique<BodyBudget>(options.max_body_memory_bytes);
    const std::string where = options.host + ":" + std::to_string(options.port);
    beast::error_code ec;
    const auto address = net::ip::make_address(options.host, ec);
    if (ec)
        throw Error(ErrorCode::invalid_argument,
                    "--host " + options.host + " is not an IP address (" + ec.message() + ")");
    const tcp::endpoint endpoint(address, static_cast<unsigned short>(options.port));
    auto& a = impl_->acceptor;
    if (!a.open(endpoint.protocol(), ec) &&
        !a.set_option(net::socket_base::reuse_address(true), ec) && !a.bind(endpoint, ec) &&
        !a.listen(net::socket_base::max_listen_connections, ec)) {
        impl_->tasks = std::make_unique<TaskPool>(options.handler_threads);
        impl_->accept();
        return;
    }
    throw Error(ErrorCode::io, "cannot listen on " + where + ": " + ec.message());
}

HttpServer::~HttpServer() {
    impl_->tasks.reset();  // joins the handler threads before the connections go away
}

int HttpServer::port() const {
    beast::error_code ec;
    return impl_->acceptor.local_endpoint(ec).port();
}

void HttpServer::run() {
    impl_->io.run();
}

void HttpServer::stop_accepting() {
    net::post(impl_->io, [impl = impl_] {
        impl->stopping = true;
        beast::error_code ec;
        impl->acceptor.close(ec);
        const auto open = impl->connections;  // closing erases from the set
        for (const auto& c : open) c->stop_after_response();
    });
}

void HttpServer::stop(std::chrono::milliseconds grace) {
    net::post(impl_->io, [impl = impl_, grace] {
        impl->stopping = true;
        beast::error_code ec;
        impl->acceptor.close(ec);
        impl->work.reset();
        const auto open = impl->connections;  // closing erases from the set
        for (const auto& c : open) c->stop_after_response();
        if (impl->connections.empty()) return;
        impl->stop_timer.expires_after(grace);
        impl->stop_timer.async_wait([impl](beast::error_code e) {
            if (e) return;  // cancelled: every connection closed in time
            const auto left = impl->connections;
            for (const auto& c : left) c->close();
        });
    });
}

}  // namespace qwen3tts::server
