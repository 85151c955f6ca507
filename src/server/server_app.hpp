// The HTTP API of `qwen3tts serve`: routing, the API key, and the endpoints (speech in
// speech_endpoint.cpp, voices in voices_endpoint.cpp, the rest in server_app.cpp). The HTTP
// server hands every request to handle(); the model arrives later (set_model), so /health
// can say 503 while it loads.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "server/http_message.hpp"
#include "server/metrics.hpp"
#include "server/speech_request.hpp"
#include "server/speech_service.hpp"
#include "server/voice_cloning.hpp"
#include "server/voice_store.hpp"

namespace qwen3tts::server {

struct ApiOptions {
    std::string api_key;            // "" = no key needed
    std::string model_id;           // the id GET /v1/models reports
    std::string voices_dir;         // "" = no voices endpoints (404)
    size_t max_input_chars = 4096;  // input and instructions, in code points
    int segment_chars = 0;          // the requests' default segment_chars (0: one generation)
    double max_ref_seconds = 60;    // reference clips for cloning
    int retry_after_s = 1;          // Retry-After of a 429
    // WebSocket streams (speech_stream_endpoint.cpp): the longest client message, the longest
    // first one (session.config, which may carry a base64 reference clip), and the longest
    // silence of a client before input.done.
    size_t max_stream_message_bytes = size_t(64) << 10;
    size_t max_stream_config_bytes = size_t(16) << 20;
    int stream_idle_timeout_s = 30;
};

class ServerApp {
  public:
    explicit ServerApp(ApiOptions options);

    void handle(const HttpRequest& request, std::shared_ptr<HttpResponder> response);
    // The model is loaded and the service running: requests are served from now on.
    void set_model(const Model& model, std::shared_ptr<SpeechService> service);
    // /health turns 200 (after the warm-up synthesis).
    void set_healthy() { healthy_ = true; }
    Metrics& metrics() { return metrics_; }

    // The parts of the model the endpoints need; null until set_model.
    struct Loaded {
        Model model;
        ModelInfo info;
        SpeechContext speech;
        std::shared_ptr<SpeechService> service;
        std::unique_ptr<VoiceStore> voices;
    };

  private:
    void route(const HttpRequest& req, const std::shared_ptr<HttpResponder>& res);
    bool authorized(const HttpRequest& req) const;
    std::shared_ptr<const Loaded> loaded() const;
    const Loaded& require_loaded() const;  // ApiError 503 while loading

    void speech(const HttpRequest& req, const std::shared_ptr<HttpResponder>& res);
    void speech_stream(const HttpRequest& req, const std::shared_ptr<HttpResponder>& res);
    void voices(const HttpRequest& req, const std::shared_ptr<HttpResponder>& res);
    void create_voice(const HttpRequest& req, const std::shared_ptr<HttpResponder>& res,
                      const Loaded& l);
    void models(const std::shared_ptr<HttpResponder>& res);
    void health(const std::shared_ptr<HttpResponder>& res);

    ApiOptions options_;
    Metrics metrics_;
    mutable std::mutex mutex_;
    std::shared_ptr<const Loaded> loaded_;
    std::atomic<bool> healthy_{false};
    VoiceCloning cloning_;
};

// The page served at / (web_page.cpp): one HTML document with its script inline.
const std::string& web_page_html();

// Sends an ApiError as its JSON body (with Retry-After for 429/503).
void send_error(HttpResponder& res, const class ApiError& e, int retry_after_s = 1);
void send_json(HttpResponder& res, int status, const std::string& body);
// The subprotocol "bearer.<key>" a WebSocket request offers (browsers cannot set the
// Authorization header on a WebSocket), or "".
std::string bearer_subprotocol(const HttpRequest& req);

}  // namespace qwen3tts::server
