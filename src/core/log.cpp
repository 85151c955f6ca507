#include "core/log.hpp"

#include <cstdio>
#include <mutex>

namespace qwen3tts {

namespace {
std::mutex g_mutex;
LogSink g_sink;
}  // namespace

void set_log_sink(LogSink sink) {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_sink = std::move(sink);
}

void log_message(LogLevel level, const std::string& message) {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (g_sink) {
        g_sink(level, message);
        return;
    }
    if (level == LogLevel::debug) return;
    const char* tag = level == LogLevel::error     ? "error"
                      : level == LogLevel::warning ? "warning"
                                                   : "info";
    std::fprintf(stderr, "qwen3tts: %s: %s\n", tag, message.c_str());
}

}  // namespace qwen3tts
