// Library diagnostics go through a sink the caller can replace (default: stderr). The library
// never writes to stdout.
#pragma once

#include <functional>
#include <string>

namespace qwen3tts {

enum class LogLevel { debug, info, warning, error };

using LogSink = std::function<void(LogLevel, const std::string&)>;

void set_log_sink(LogSink sink);
void log_message(LogLevel level, const std::string& message);
inline void log_warning(const std::string& m) {
    log_message(LogLevel::warning, m);
}
inline void log_info(const std::string& m) {
    log_message(LogLevel::info, m);
}

}  // namespace qwen3tts
