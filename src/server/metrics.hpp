// Counters and histograms of the server, rendered in the Prometheus text format
// (version 0.0.4) for GET /metrics. Thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "server/speech_service.hpp"

namespace qwen3tts::server {

class Metrics {
  public:
    void request_finished(const std::string& path, int status);
    void speech_finished(int64_t frames, double first_audio_s, double real_time_factor);
    void speech_cancelled();
    // WebSocket streaming sessions (speech_stream_endpoint.cpp): open now, and ended by
    // outcome ("done", "error", "client_closed", "shutdown").
    void stream_opened();
    void stream_ended(const std::string& outcome);
    // The gauges come from the speech service at the time of the scrape.
    std::string render(const SpeechServiceStats& service) const;

  private:
    struct Histogram {
        std::vector<double> bounds;
        std::vector<uint64_t> counts;  // per bucket (not cumulative); the last is +Inf
        double sum = 0;
        uint64_t n = 0;
        void observe(double v);
        void render(std::string& out, const std::string& name) const;
    };
    mutable std::mutex mutex_;
    std::map<std::pair<std::string, int>, uint64_t> requests_;
    uint64_t frames_ = 0;
    uint64_t cancelled_ = 0;
    uint64_t streams_open_ = 0;
    std::map<std::string, uint64_t> streams_ended_;
    Histogram first_audio_{{0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10}, {}};
    Histogram rtf_{{0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 3, 5}, {}};
};

}  // namespace qwen3tts::server
