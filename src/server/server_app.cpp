#include "server/server_app.hpp"

#include "server/api_error.hpp"

namespace qwen3tts::server {

namespace {

// Counts each response by route and status for /metrics (499: the client left first).
class MeteredResponder : public HttpResponder {
  public:
    MeteredResponder(std::shared_ptr<HttpResponder> inner, Metrics& metrics, std::string route)
        : inner_(std::move(inner)), metrics_(metrics), route_(std::move(route)) {}
    ~MeteredResponder() override {
        if (!counted_) metrics_.request_finished(route_, 499);
    }
    void send(int status, HttpHeaders headers, std::string body) override {
        count(status);
        inner_->send(status, std::move(headers), std::move(body));
    }
    void begin(int status, HttpHeaders headers) override {
        count(status);
        inner_->begin(status, std::move(headers));
    }
    bool write(std::string data) override { return inner_->write(std::move(data)); }
    void end() override { inner_->end(); }
    void abort() override { inner_->abort(); }
    bool cancelled() const override { return inner_->cancelled(); }
    void on_cancel(std::function<void()> f) override { inner_->on_cancel(std::move(f)); }
    void accept_websocket(WebSocketAccept accept) override {
        count(101);
        inner_->accept_websocket(std::move(accept));
    }

  private:
    void count(int status) {
        if (counted_.exchange(true)) return;
        metrics_.request_finished(route_, status);
    }
    std::shared_ptr<HttpResponder> inner_;
    Metrics& metrics_;
    std::string route_;
    std::atomic<bool> counted_{false};
};

std::string route_name(const std::string& path) {
    if (path == "/v1/audio/speech" || path == "/v1/audio/speech/stream") return path;
    if (path.rfind("/v1/audio/voices", 0) == 0) return "/v1/audio/voices";
    if (path == "/" || path == "/health" || path == "/metrics" || path == "/v1/models") return path;
    return "other";
}

// Compares in time that depends on the lengths only, not on where the first difference is.
bool constant_time_equal(const std::string& a, const std::string& b) {
    unsigned char diff = a.size() == b.size() ? 0 : 1;
    const size_t n = std::max(a.size(), b.size());
    for (size_t i = 0; i < n; ++i)
        diff |= static_cast<unsigned char>((i < a.size() ? a[i] : 0) ^ (i < b.size() ? b[i] : 0));
    return diff == 0;
}

}  // namespace

void send_json(HttpResponder& res, int status, const std::string& body) {
    res.send(status, {{"Content-Type", "application/json"}}, body);
}

void send_error(HttpResponder& res, const ApiError& e, int retry_after_s) {
    HttpHeaders h = {{"Content-Type", "application/json"}};
    if (e.status() == 429 || e.status() == 503)
        h.emplace_back("Retry-After", std::to_string(retry_after_s));
    if (e.status() == 401) h.emplace_back("WWW-Authenticate", "Bearer");
    res.send(e.status(), std::move(h), error_json(e));
}

ServerApp::ServerApp(ApiOptions options)
    : options_(std::move(options)), cloning_(options_.max_ref_seconds) {}

void ServerApp::set_model(const Model& model, std::shared_ptr<SpeechService> service) {
    auto l = std::make_shared<Loaded>();
    l->model = model;
    l->info = model.info();
    l->speech.info = l->info;
    l->speech.defaults = model.default_options();
    l->speech.defaults.segment_chars = options_.segment_chars;
    l->speech.max_input_chars = options_.max_input_chars;
    if (!options_.voices_dir.empty()) {
        l->voices = std::make_unique<VoiceStore>(options_.voices_dir);
        l->speech.stored_voice = [store = l->voices.get()](const std::string& id) {
            return store->find_voice(id);
        };
    }
    l->service = std::move(service);
    std::lock_guard<std::mutex> lock(mutex_);
    loaded_ = std::move(l);
}

std::shared_ptr<const ServerApp::Loaded> ServerApp::loaded() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return loaded_;
}

const ServerApp::Loaded& ServerApp::require_loaded() const {
    const auto l = loaded();
    if (!l) throw ApiError(503, "the model is still loading; retry shortly", "", "loading");
    return *l;  // set once and kept for the life of the app
}

std::string bearer_subprotocol(const HttpRequest& req) {
    const std::string* h = req.header("sec-websocket-protocol");
    if (!h) return "";
    size_t start = 0;
    while (start <= h->size()) {
        size_t end = h->find(',', start);
        if (end == std::string::npos) end = h->size();
        size_t a = start, b = end;
        while (a < b && (*h)[a] == ' ') ++a;
        while (b > a && (*h)[b - 1] == ' ') --b;
        if (h->compare(a, 7, "bearer.") == 0 && b - a > 7) return h->substr(a, b - a);
        start = end + 1;
    }
    return "";
}

bool ServerApp::authorized(const HttpRequest& req) const {
    if (options_.api_key.empty()) return true;
    const std::string* h = req.header("authorization");
    if (!h && req.path == "/v1/audio/speech/stream") {
        const std::string protocol = bearer_subprotocol(req);
        return !protocol.empty() && constant_time_equal(protocol.substr(7), options_.api_key);
    }
    const std::string prefix = "Bearer ";
    if (!h || h->compare(0, prefix.size(), prefix) != 0) return false;
    return constant_time_equal(h->substr(prefix.size()), options_.api_key);
}

void ServerApp::handle(const HttpRequest& req, std::shared_ptr<HttpResponder> response) {
    auto res =
        std::make_shared<MeteredResponder>(std::move(response), metrics_, route_name(req.path));
    try {
        route(req, res);
    } catch (const ApiError& e) {
        send_error(*res, e, options_.retry_after_s);
    } catch (const Error& e) {
        const int status = e.code() == ErrorCode::invalid_argument ||
                                   e.code() == ErrorCode::format ||
                                   e.code() == ErrorCode::unsupported
                               ? 400
                               : 500;
        send_error(*res, ApiError(status, e.what()));
    }
}

void ServerApp::route(const HttpRequest& req, const std::shared_ptr<HttpResponder>& res) {
    const std::string& p = req.path;
    const auto only = [&](const char* method) {
        if (req.method != method)
            throw ApiError(405, req.method + " is not allowed on " + p + " (use " + method + ")");
    };
    if (p == "/health") {
        only("GET");
        return health(res);
    }
    if (p == "/" || p == "/index.html") {
        only("GET");
        return res->send(200, {{"Content-Type", "text/html; charset=utf-8"}}, web_page_html());
    }
    if (!authorized(req))
        throw ApiError(401,
                       req.header("authorization") || !bearer_subprotocol(req).empty()
                           ? "invalid API key"
                           : "missing API key: send the header Authorization: Bearer <key>",
                       "", "invalid_api_key");
    if (p == "/metrics") {
        only("GET");
        const auto l = loaded();
        return res->send(200, {{"Content-Type", "text/plain; version=0.0.4; charset=utf-8"}},
                         metrics_.render(l ? l->service->stats() : SpeechServiceStats{}));
    }
    if (p == "/v1/models") {
        only("GET");
        return models(res);
    }
    if (p == "/v1/audio/speech") {
        only("POST");
        return speech(req, res);
    }
    if (p == "/v1/audio/speech/stream") {
        only("GET");
        return speech_stream(req, res);
    }
    if (p == "/v1/audio/voices" || p.rfind("/v1/audio/voices/", 0) == 0) return voices(req, res);
    throw ApiError(404, "no endpoint " + req.method + " " + p, "", "not_found");
}

void ServerApp::health(const std::shared_ptr<HttpResponder>& res) {
    if (!healthy_)
        return res->send(503, {{"Content-Type", "application/json"}, {"Retry-After", "1"}},
                         "{\"status\":\"loading\"}");
    send_json(*res, 200, "{\"status\":\"ok\"}");
}

void ServerApp::models(const std::shared_ptr<HttpResponder>& res) {
    const Loaded& l = require_loaded();
    const auto list = [](const std::vector<std::string>& v) {
        std::string out;
        for (const auto& s : v) out += (out.empty() ? "" : ",") + json_quote(s);
        return "[" + out + "]";
    };
    // OpenAI's model object, plus what a client needs to fill its menus (the page does).
    send_json(
        *res, 200,
        "{\"object\":\"list\",\"data\":[{\"id\":" + json_quote(options_.model_id) +
            ",\"object\":\"model\",\"created\":0,\"owned_by\":\"qwen3tts\",\"type\":" +
            json_quote(l.info.type) + ",\"size\":" + json_quote(l.info.size) +
            ",\"speakers\":" + list(l.info.speakers) + ",\"languages\":" + list(l.info.languages) +
            ",\"takes_instruction\":" + (l.info.takes_instruction ? "true" : "false") + "}]}");
}

}  // namespace qwen3tts::server
