// qwen3tts serve: the OpenAI-compatible speech server (docs/serving.md). Listens at once, loads
// the model in the background, and exits 0 on SIGINT/SIGTERM after the running requests.
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "commands.hpp"
#include "server/serve.hpp"
#include "synthesis_args.hpp"

namespace qwen3tts::cli {

namespace {

// The access log and the server's notes: one timestamped line each on stderr.
void log_line(const std::string& line) {
    char stamp[32];
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&now, &tm);
    std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
    std::fprintf(stderr, "%s %s\n", stamp, line.c_str());
    std::fflush(stderr);
}

}  // namespace

int cmd_serve(const Args& args) {
    server::ServeOptions o;
    o.http.host = args.get("host", o.http.host);
    o.http.port = args.get_int("port", o.http.port, 0);
    if (o.http.port > 65535)
        throw Error(ErrorCode::invalid_argument,
                    "--port must be in [0, 65535], got " + args.get("port"));
    o.http.max_body_bytes = size_t(args.get_int("max-body-mb", 32, 1)) << 20;
    o.http.max_body_memory_bytes = size_t(args.get_int("max-body-memory-mb", 256, 1)) << 20;
    o.api.api_key = args.get("api-key");
    if (o.api.api_key.empty())
        if (const char* k = std::getenv("QWEN3TTS_API_KEY")) o.api.api_key = k;
    o.api.model_id = args.get("model", kDefaultModel);
    o.api.voices_dir = args.get("voices-dir");
    o.api.max_input_chars = size_t(args.get_int("max-input-chars", 4096, 1));
    o.api.segment_chars = args.get_int("segment-chars", 0, 0);
    o.api.stream_idle_timeout_s =
        args.get_int("stream-idle-timeout", o.api.stream_idle_timeout_s, 1);
    o.max_batch = size_t(args.get_int("max-batch", SchedulerOptions().max_batch, 1));
    o.max_queue = size_t(args.get_int("max-queue", 16, 0));
    o.shutdown_grace_s = args.get_int("shutdown-grace", o.shutdown_grace_s, 0);
    o.engine.threads = args.get_int("threads", 0, 0);
    return server::serve(
        o, [&args] { return load_model(args); }, log_line);
}

}  // namespace qwen3tts::cli
