// `qwen3tts serve` put together: the HTTP server starts listening at once (/health answers
// 503), the model loads on a background thread, a short warm-up synthesis runs, then /health
// says 200. SIGINT/SIGTERM: no new connections, running requests get `shutdown_grace_s` to
// finish (then they are cancelled), and serve() returns 0.
#pragma once

#include <functional>
#include <string>

#include "server/http_server.hpp"
#include "server/server_app.hpp"

namespace qwen3tts::server {

struct ServeOptions {
    HttpServerOptions http;
    ApiOptions api;
    size_t max_batch = 8;   // requests generated together in one batch
    size_t max_queue = 16;  // requests waiting beyond those; more get 429
    EngineOptions engine;
    int shutdown_grace_s = 10;
};

using LogFn = std::function<void(const std::string& line)>;

// Blocks until a signal stops the server. Returns 0 after a clean shutdown, 1 when the model
// failed to load (the reason went to `log`). Throws Error when it cannot listen.
int serve(const ServeOptions& options, const std::function<Model()>& load_model, const LogFn& log);

}  // namespace qwen3tts::server
