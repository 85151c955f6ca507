// GET /v1/audio/speech/stream, upgraded to WebSocket: the client sends session.config, then
// its text in pieces (input.text) as an LLM writes it, then input.done; each piece goes to the
// request's streaming text input at once, and the audio comes back as each frame is made
// (docs/serving.md has the protocol, its limits and its close codes).
#include <algorithm>
#include <mutex>

#include "core/strings.hpp"
#include "server/api_error.hpp"
#include "server/server_app.hpp"
#include "server/speech_audio_writer.hpp"

namespace qwen3tts::server {

namespace {

// RFC 6455 7.4.1 close codes.
constexpr int kCloseNormal = 1000;
constexpr int kCloseGoingAway = 1001;
constexpr int kClosePolicy = 1008;
constexpr int kCloseTooBig = 1009;
constexpr int kCloseServerError = 1011;
constexpr int kCloseTryAgainLater = 1013;

// One session. The handler events (on_open ... on_closed) come one at a time on handler
// threads; the audio and the outcome come on the scheduler's thread. mutex_ orders what the
// two send, so that nothing follows the final message.
class StreamSession : public WebSocketHandler, public std::enable_shared_from_this<StreamSession> {
  public:
    StreamSession(std::shared_ptr<const ServerApp::Loaded> loaded, Metrics& metrics,
                  VoiceCloning& cloning, ApiOptions options)
        : loaded_(std::move(loaded)),
          metrics_(metrics),
          cloning_(cloning),
          options_(std::move(options)) {}

    void on_open(std::shared_ptr<WebSocket> ws) override {
        const std::lock_guard<std::mutex> lock(mutex_);
        ws_ = std::move(ws);
        metrics_.stream_opened();
        opened_ = true;
    }

    void on_message(std::string data, bool text) override {
        got_message_ = true;  // handler events come one at a time: no lock needed
        try {
            if (!text)
                throw ApiError(400, "binary messages are not part of this protocol; send JSON text",
                               "", "invalid_message");
            handle(parse_stream_message(data, loaded_->speech));
        } catch (const ApiError& e) {
            fail(e, e.status() == 429   ? kCloseTryAgainLater
                    : e.status() >= 500 ? kCloseServerError
                                        : kClosePolicy);
        } catch (const Error& e) {
            const bool client = e.code() == ErrorCode::invalid_argument ||
                                e.code() == ErrorCode::format || e.code() == ErrorCode::unsupported;
            fail(ApiError(client ? 400 : 500, e.what()), client ? kClosePolicy : kCloseServerError);
        }
    }

    void on_oversized() override {
        const size_t limit = got_message_ ? options_.max_stream_message_bytes
                                          : std::max(options_.max_stream_message_bytes,
                                                     options_.max_stream_config_bytes);
        fail(ApiError(400,
                      std::string(got_message_ ? "the message" : "the first message") +
                          " is larger than the limit of " + std::to_string(limit) + " bytes",
                      "", "message_too_large"),
             kCloseTooBig);
    }

    void on_idle() override {
        fail(ApiError(400,
                      "no message for " + std::to_string(options_.stream_idle_timeout_s) +
                          " s; send input.text as the text comes, and input.done at its end",
                      "", "idle_timeout"),
             kClosePolicy);
    }

    void on_closed() override {
        std::shared_ptr<TextStreamTicket> ticket;
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            if (!ended_) end("client_closed");
            ticket = std::move(ticket_);
            ws_.reset();
        }
        if (ticket) ticket->cancel();  // ends within one frame (a no-op once it has ended)
    }

  private:
    void handle(const StreamMessage& m) {
        using T = StreamMessage::Type;
        const std::lock_guard<std::mutex> lock(mutex_);
        if (ended_) return;
        if (m.type == T::config) return configure(m);
        if (!ticket_)
            throw ApiError(400, "the first message must be session.config", "type",
                           "config_required");
        if (text_done_)
            throw ApiError(400, "no message may follow input.done", "type", "text_finished");
        if (m.type == T::text) {
            chars_ += utf8_code_points(m.text);
            if (chars_ > loaded_->speech.max_input_chars)
                throw ApiError(400,
                               "text: the stream's text is " + std::to_string(chars_) +
                                   " characters long; the limit is " +
                                   std::to_string(loaded_->speech.max_input_chars),
                               "text", "string_above_max_length");
            text_ += m.text;
            ticket_->push_text(m.text);
        } else if (m.type == T::done) {
            if (text_.empty())
                throw ApiError(400, "input.done: no text was sent", "text", "empty_input");
            text_done_ = true;
            input_tokens_ = loaded_->model.tokenize(text_).size();
            ws_->set_idle_timeout(0);  // the client now only listens
            ticket_->finish_text();
        } else {
            ticket_->flush_text();
        }
    }

    void configure(const StreamMessage& m) {
        if (ticket_)
            throw ApiError(400, "session.config may be sent only once, first", "type",
                           "config_repeated");
        format_ = m.config.format;
        speed_ = m.config.speed;
        seed_ = m.config.job.options.seed.value();
        json_audio_ = m.json_audio;
        // The callbacks hold the session only weakly: it owns the ticket, the request owns them.
        std::weak_ptr<StreamSession> weak = weak_from_this();
        SpeechJob job = m.config.job;
        job.text.clear();
        if (!m.config.ref_audio.empty())  // vLLM-Omni's inline clip: for this stream only
            job.options.voice =
                cloning_.clone(loaded_->model, m.config.ref_audio, m.config.clone, "ref_audio");
        ticket_ = loaded_->service->submit_text_stream(
            std::move(job),
            [weak](const float* s, size_t n) {
                if (auto self = weak.lock()) self->on_audio(s, n);
            },
            [weak, &metrics = metrics_](const SpeechOutcome& o) {
                // Counted here: a session whose client left may be gone already.
                if (o.status == SpeechOutcome::Status::cancelled) metrics.speech_cancelled();
                if (auto self = weak.lock()) self->on_done(o);
            });
        if (!ticket_)
            throw ApiError(429, "the server is busy: the queue of waiting requests is full", "",
                           "rate_limit_exceeded");
    }

    // Scheduler thread.
    void on_audio(const float* samples, size_t n) {
        const std::lock_guard<std::mutex> lock(mutex_);
        if (ended_) return;
        try {
            open_writer();
            writer_->write(samples, n);
        } catch (const std::exception& e) {
            ticket_->cancel();
            return fail_locked(ApiError(500, std::string("audio encoding failed: ") + e.what()),
                               kCloseServerError);
        }
        send_pending();
    }

    // Scheduler thread.
    void on_done(const SpeechOutcome& o) {
        using S = SpeechOutcome::Status;
        const std::lock_guard<std::mutex> lock(mutex_);
        if (ended_) return;  // the client left, or an error was sent
        if (o.status == S::cancelled) {
            return fail_locked(ApiError(503, "the server is shutting down", "", "shutdown"),
                               kCloseGoingAway, "shutdown");
        }
        if (o.status == S::failed) {
            const bool client = o.error_code == ErrorCode::invalid_argument ||
                                o.error_code == ErrorCode::unsupported;
            return fail_locked(ApiError(client ? 400 : 500, o.error),
                               client ? kClosePolicy : kCloseServerError);
        }
        try {
            open_writer();
            writer_->finish();
        } catch (const std::exception& e) {
            return fail_locked(ApiError(500, std::string("audio encoding failed: ") + e.what()),
                               kCloseServerError);
        }
        send_pending();
        const int64_t frames = o.report.generation.frames;
        const double audio_s = double(o.report.samples) / double(loaded_->model.sample_rate());
        const double rtf = audio_s > 0 ? o.report.total_ms / 1000.0 / audio_s : 0.0;
        char stats[160];
        std::snprintf(stats, sizeof stats,
                      "\"stats\":{\"frames\":%lld,\"first_audio_ms\":%.1f,\"rtf\":%.4f}",
                      static_cast<long long>(frames), o.report.first_audio_ms, rtf);
        ws_->send_text("{\"type\":\"speech.audio.done\",\"usage\":{\"input_tokens\":" +
                       std::to_string(input_tokens_) +
                       ",\"output_tokens\":" + std::to_string(frames) +
                       ",\"total_tokens\":" + std::to_string(input_tokens_ + size_t(frames)) +
                       "}," + stats + ",\"seed\":" + std::to_string(seed_) + "}");
        ws_->close(kCloseNormal, "");
        if (audio_s > 0) metrics_.speech_finished(frames, o.report.first_audio_ms / 1000.0, rtf);
        end("done");
    }

    // At the first audio (as the HTTP path does): a format's header goes out with it.
    void open_writer() {
        if (writer_) return;
        writer_ = std::make_unique<SpeechAudioWriter>(
            [this](const void* d, size_t k) { pending_.append(static_cast<const char*>(d), k); },
            format_, loaded_->model.sample_rate(), speed_);
    }

    // One message per frame of audio.
    void send_pending() {
        if (pending_.empty()) return;
        if (json_audio_) {
            ws_->send_text("{\"type\":\"speech.audio.delta\",\"audio\":\"" +
                           encode_base64(pending_.data(), pending_.size()) + "\"}");
        } else {
            ws_->send_binary(std::move(pending_));
        }
        pending_.clear();
    }

    void fail(const ApiError& e, int close_code) {
        std::shared_ptr<TextStreamTicket> ticket;
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            if (ended_) return;
            fail_locked(e, close_code);
            ticket = ticket_;
        }
        if (ticket) ticket->cancel();
    }

    // The error message, then the close: the session is over.
    void fail_locked(const ApiError& e, int close_code, const char* outcome = "error") {
        if (ws_) {
            ws_->send_text("{\"type\":\"error\"," + error_json(e).substr(1));
            ws_->close(close_code, "");
        }
        end(outcome);
    }

    void end(const char* outcome) {
        ended_ = true;
        if (opened_) metrics_.stream_ended(outcome);
    }

    std::shared_ptr<const ServerApp::Loaded> loaded_;
    Metrics& metrics_;
    VoiceCloning& cloning_;
    const ApiOptions options_;
    std::mutex mutex_;
    std::shared_ptr<WebSocket> ws_;
    std::shared_ptr<TextStreamTicket> ticket_;
    bool opened_ = false;
    bool got_message_ = false;  // handler events only
    bool ended_ = false;        // the final message went out, or the client left
    bool text_done_ = false;
    bool json_audio_ = false;
    AudioFormat format_ = AudioFormat::raw_pcm16;
    double speed_ = 1.0;
    uint64_t seed_ = 0;  // the request's, or the one drawn for it (speech_request.cpp)
    std::string text_;   // all text so far (bounded by max_input_chars), for the usage
    size_t chars_ = 0;
    size_t input_tokens_ = 0;
    std::unique_ptr<SpeechAudioWriter> writer_;
    std::string pending_;  // encoded bytes of the current frame
};

bool is_websocket_upgrade(const HttpRequest& req) {
    const std::string* upgrade = req.header("upgrade");
    if (!upgrade) return false;
    std::string u = *upgrade;
    for (auto& c : u) c = char(std::tolower(static_cast<unsigned char>(c)));
    return u == "websocket";
}

}  // namespace

void ServerApp::speech_stream(const HttpRequest& req, const std::shared_ptr<HttpResponder>& res) {
    require_loaded();
    if (!is_websocket_upgrade(req))
        throw ApiError(426,
                       "this endpoint is a WebSocket (docs/serving.md); connect with a WebSocket "
                       "client",
                       "", "upgrade_required");
    auto session = std::make_shared<StreamSession>(loaded(), metrics_, cloning_, options_);
    WebSocketAccept accept;
    accept.handler = session;
    accept.subprotocol = bearer_subprotocol(req);
    accept.max_message_bytes = options_.max_stream_message_bytes;
    accept.max_first_message_bytes = options_.max_stream_config_bytes;
    accept.idle_timeout_s = options_.stream_idle_timeout_s;
    res->accept_websocket(std::move(accept));
}

}  // namespace qwen3tts::server
