// POST /v1/audio/speech: the response head waits for the first audio, so that an error found
// when synthesis starts is still a clean 4xx/5xx; then the encoded audio streams out as each
// frame is made, as a chunked body (stream_format "audio") or as server-sent events
// ("sse": speech.audio.delta with base64 audio, then speech.audio.done with usage). A speed
// other than 1 time-stretches the samples on their way to the encoder, chunk by chunk. The
// sampling seed (the request's, or the one drawn for it) goes out as the X-Seed header and in
// the done event, so that a client can repeat what it heard.
#include <vector>

#include "server/api_error.hpp"
#include "server/server_app.hpp"
#include "server/speech_audio_writer.hpp"

namespace qwen3tts::server {

namespace {

class SpeechStream {
  public:
    SpeechStream(std::shared_ptr<HttpResponder> res, const SpeechRequest& r, Metrics& metrics,
                 int sample_rate, size_t input_tokens)
        : res_(std::move(res)),
          format_(r.format),
          sse_(r.sse),
          metrics_(metrics),
          sample_rate_(sample_rate),
          speed_(r.speed),
          seed_(r.job.options.seed.value()),
          input_tokens_(input_tokens) {}

    void on_audio(const float* samples, size_t n) {
        open();
        writer_->write(samples, n);
    }

    void on_done(const SpeechOutcome& o) {
        using S = SpeechOutcome::Status;
        if (o.status == S::cancelled) {
            metrics_.speech_cancelled();
            return res_->abort();
        }
        if (o.status == S::failed) {
            if (begun_) return res_->abort();
            const bool client_fault = o.error_code == ErrorCode::invalid_argument ||
                                      o.error_code == ErrorCode::unsupported;
            return send_error(*res_, ApiError(client_fault ? 400 : 500, o.error));
        }
        try {
            open();
            writer_->finish();
        } catch (const std::exception&) {
            return res_->abort();
        }
        if (sse_) {
            const size_t out = size_t(o.report.generation.frames);
            res_->write("data: {\"type\":\"speech.audio.done\",\"usage\":{\"input_tokens\":" +
                        std::to_string(input_tokens_) +
                        ",\"output_tokens\":" + std::to_string(out) +
                        ",\"total_tokens\":" + std::to_string(input_tokens_ + out) +
                        "},\"seed\":" + std::to_string(seed_) + "}\n\n");
        }
        res_->end();
        const double audio_s = double(o.report.samples) / double(sample_rate_);
        if (audio_s > 0)
            metrics_.speech_finished(o.report.generation.frames, o.report.first_audio_ms / 1000.0,
                                     o.report.total_ms / 1000.0 / audio_s);
    }

  private:
    void open() {
        if (begun_) return;
        begun_ = true;
        HttpHeaders h;
        if (sse_) {
            h = {{"Content-Type", "text/event-stream"}, {"Cache-Control", "no-cache"}};
        } else {
            h = {{"Content-Type", audio_format_mime_type(format_)}};
        }
        h.emplace_back("X-Seed", std::to_string(seed_));
        res_->begin(200, std::move(h));
        auto res = res_;
        const bool sse = sse_;
        writer_ = std::make_unique<SpeechAudioWriter>(
            [res, sse](const void* data, size_t n) {
                if (!sse) {
                    res->write(std::string(static_cast<const char*>(data), n));
                    return;
                }
                res->write("data: {\"type\":\"speech.audio.delta\",\"audio\":\"" +
                           encode_base64(data, n) + "\"}\n\n");
            },
            format_, sample_rate_, speed_);
    }

    std::shared_ptr<HttpResponder> res_;
    AudioFormat format_;
    bool sse_;
    Metrics& metrics_;
    int sample_rate_;
    double speed_;
    uint64_t seed_;
    size_t input_tokens_;
    bool begun_ = false;
    std::unique_ptr<SpeechAudioWriter> writer_;
};

}  // namespace

void ServerApp::speech(const HttpRequest& req, const std::shared_ptr<HttpResponder>& res) {
    const Loaded& l = require_loaded();
    SpeechRequest r = parse_speech_request(req.body, l.speech);
    if (!r.ref_audio.empty())  // vLLM-Omni's inline clip: for this request only
        r.job.options.voice = cloning_.clone(l.model, r.ref_audio, r.clone, "ref_audio");
    const size_t input_tokens = l.model.tokenize(r.job.text).size();
    auto stream =
        std::make_shared<SpeechStream>(res, r, metrics_, l.model.sample_rate(), input_tokens);
    auto ticket = l.service->submit(
        std::move(r.job), [stream](const float* s, size_t n) { stream->on_audio(s, n); },
        [stream](const SpeechOutcome& o) { stream->on_done(o); });
    if (!ticket)
        throw ApiError(429, "the server is busy: the queue of waiting requests is full", "",
                       "rate_limit_exceeded");
    res->on_cancel([weak = std::weak_ptr<SpeechTicket>(ticket)] {
        if (auto t = weak.lock()) t->cancel();
    });
}

}  // namespace qwen3tts::server
