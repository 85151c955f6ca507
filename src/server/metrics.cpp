#include "server/metrics.hpp"

#include <cstdio>

namespace qwen3tts::server {

namespace {

std::string number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

}  // namespace

void Metrics::Histogram::observe(double v) {
    if (counts.empty()) counts.assign(bounds.size() + 1, 0);
    size_t i = 0;
    while (i < bounds.size() && v > bounds[i]) ++i;
    ++counts[i];
    sum += v;
    ++n;
}

void Metrics::Histogram::render(std::string& out, const std::string& name) const {
    uint64_t cumulative = 0;
    for (size_t i = 0; i <= bounds.size(); ++i) {
        cumulative += counts.empty() ? 0 : counts[i];
        const std::string le = i < bounds.size() ? number(bounds[i]) : "+Inf";
        out += name + "_bucket{le=\"" + le + "\"} " + std::to_string(cumulative) + "\n";
    }
    out += name + "_sum " + number(sum) + "\n" + name + "_count " + std::to_string(n) + "\n";
}

void Metrics::request_finished(const std::string& path, int status) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++requests_[{path, status}];
}

void Metrics::speech_finished(int64_t frames, double first_audio_s, double real_time_factor) {
    std::lock_guard<std::mutex> lock(mutex_);
    frames_ += uint64_t(frames);
    first_audio_.observe(first_audio_s);
    rtf_.observe(real_time_factor);
}

void Metrics::speech_cancelled() {
    std::lock_guard<std::mutex> lock(mutex_);
    ++cancelled_;
}

void Metrics::stream_opened() {
    std::lock_guard<std::mutex> lock(mutex_);
    ++streams_open_;
}

void Metrics::stream_ended(const std::string& outcome) {
    std::lock_guard<std::mutex> lock(mutex_);
    --streams_open_;
    ++streams_ended_[outcome];
}

std::string Metrics::render(const SpeechServiceStats& service) const {
    std::lock_guard<std::mutex> lock(mutex_);
    std::string out;
    out += "# HELP qwen3tts_requests_total HTTP requests answered, by route and status.\n";
    out += "# TYPE qwen3tts_requests_total counter\n";
    for (const auto& [key, n] : requests_)
        out += "qwen3tts_requests_total{path=\"" + key.first + "\",status=\"" +
               std::to_string(key.second) + "\"} " + std::to_string(n) + "\n";
    out += "# HELP qwen3tts_queue_depth Speech requests waiting for a free slot.\n";
    out += "# TYPE qwen3tts_queue_depth gauge\n";
    out += "qwen3tts_queue_depth " + std::to_string(service.queued) + "\n";
    out += "# HELP qwen3tts_active_streams Speech requests being synthesized.\n";
    out += "# TYPE qwen3tts_active_streams gauge\n";
    out += "qwen3tts_active_streams " + std::to_string(service.active) + "\n";
    out += "# HELP qwen3tts_frames_generated_total Codec frames generated (12.5 per second).\n";
    out += "# TYPE qwen3tts_frames_generated_total counter\n";
    out += "qwen3tts_frames_generated_total " + std::to_string(frames_) + "\n";
    out +=
        "# HELP qwen3tts_speech_cancelled_total Speech requests stopped early (client gone, "
        "shutdown).\n";
    out += "# TYPE qwen3tts_speech_cancelled_total counter\n";
    out += "qwen3tts_speech_cancelled_total " + std::to_string(cancelled_) + "\n";
    out += "# HELP qwen3tts_stream_sessions_open WebSocket streaming sessions open.\n";
    out += "# TYPE qwen3tts_stream_sessions_open gauge\n";
    out += "qwen3tts_stream_sessions_open " + std::to_string(streams_open_) + "\n";
    out +=
        "# HELP qwen3tts_stream_sessions_total WebSocket streaming sessions ended, by outcome.\n";
    out += "# TYPE qwen3tts_stream_sessions_total counter\n";
    for (const auto& [outcome, n] : streams_ended_)
        out += "qwen3tts_stream_sessions_total{outcome=\"" + outcome + "\"} " + std::to_string(n) +
               "\n";
    out +=
        "# HELP qwen3tts_time_to_first_audio_seconds From the start of synthesis to the "
        "first audio.\n";
    out += "# TYPE qwen3tts_time_to_first_audio_seconds histogram\n";
    first_audio_.render(out, "qwen3tts_time_to_first_audio_seconds");
    out += "# HELP qwen3tts_real_time_factor Synthesis time divided by audio duration.\n";
    out += "# TYPE qwen3tts_real_time_factor histogram\n";
    rtf_.render(out, "qwen3tts_real_time_factor");
    return out;
}

}  // namespace qwen3tts::server
