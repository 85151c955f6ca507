// The public Scheduler: SynthesisOptions → runtime jobs on a FrameScheduler.
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "api/model_impl.hpp"
#include "api/option_parsing.hpp"
#include "api/request_building.hpp"
#include "api/voice_impl.hpp"
#include "core/error.hpp"
#include "runtime/frame_scheduler.hpp"
#include "text/unicode.hpp"

namespace qwen3tts {

struct SpeechRequest::Impl {
    std::shared_ptr<Job> job;
    uint64_t seed = 0;
    bool audio = false;
};

struct Scheduler::Impl {
    std::shared_ptr<const Model::Impl> model;
    FrameScheduler scheduler;

    SpeechRequest submit(const std::string& text, const SynthesisOptions& options,
                         RequestCallbacks callbacks, bool incremental);
};

namespace {

RequestResult to_result(const JobResult& r, uint64_t seed, bool audio) {
    RequestResult out;
    switch (r.status) {
        case JobResult::Status::completed:
            out.status = RequestResult::Status::completed;
            break;
        case JobResult::Status::cancelled:
            out.status = RequestResult::Status::cancelled;
            break;
        case JobResult::Status::failed:
            out.status = RequestResult::Status::failed;
            break;
    }
    if (r.error) {
        try {
            std::rethrow_exception(r.error);
        } catch (const Error& e) {
            out.error_code = e.code();
            out.error = e.what();
        } catch (const std::bad_alloc&) {
            out.error_code = ErrorCode::internal;
            out.error = "out of memory";
        } catch (const std::exception& e) {
            out.error_code = ErrorCode::internal;
            out.error = e.what();
        }
    }
    out.report.generation = generation_report(r.generation, seed);
    out.report.total_ms = r.total_ms;
    if (audio) {
        out.report.codec_ms = r.codec_ms;
        out.report.first_audio_ms = r.first_audio_ms;
        out.report.samples = r.samples;
    }
    return out;
}

FrameSchedulerOptions runtime_options(const SchedulerOptions& o) {
    FrameSchedulerOptions r;
    r.max_batch = o.max_batch;
    r.max_queue = o.max_queue;
    r.session.threads = o.engine.threads;
    r.session.oversubscribe = o.engine.oversubscribe;
    r.session.reuse_prompts = o.engine.reuse_prompts;
    r.session.kernels = o.engine.kernels == Kernels::reference ? backend::KernelSet::reference
                                                               : backend::KernelSet::fast;
    return r;
}

}  // namespace

SpeechRequest Scheduler::Impl::submit(const std::string& text, const SynthesisOptions& options,
                                      RequestCallbacks callbacks, bool incremental) {
    const bool audio = bool(callbacks.on_audio);
    if (audio && parse_codec_decode(options.codec_decode) != CodecDecodeMode::streaming)
        throw Error(ErrorCode::unsupported,
                    "codec decode '" + options.codec_decode +
                        "' is not available with the Scheduler (it decodes as frames come: "
                        "use \"streaming\", or a Synthesizer)");
    // Checked, not used: the Scheduler decodes its requests' packets together between steps.
    parse_codec_overlap(options.codec_overlap);
    JobSpec spec;
    // Incremental text in segments is cut as it arrives, on the scheduler's thread.
    const std::vector<std::string> segments =
        incremental ? std::vector<std::string>{text} : spoken_segments(text, options);
    spec.params = generation_params(*model, options);
    PromptRequest request = prompt_request(*model, segments[0], options);
    const TtsModel& m = *model->model;
    const backend::ExecContext ctx = scheduler.caller_context();
    if (incremental) {
        if (request.layout == TextLayout::automatic) request.layout = TextLayout::streaming;
        // The options and the text so far are checked now (an unknown speaker is the
        // caller's error, not a failure later on).
        spec.incremental_segment_chars = segment_chars(options);
        // In segments the text goes to the cutting: its UTF-8 is checked here as the cutting
        // will (a character cut at the end waits for the rest), the voice by the prompt.
        PromptRequest checked = request;
        if (spec.incremental_segment_chars > 0) {
            check_utf8_prefix(text, 0, "text");
            checked.text.clear();
        }
        StreamingPrompt(ctx, m.config(), m.tokenizer(), m.talker(), m.predictor(), checked);
        spec.incremental_text = true;
        spec.request = request;
    } else {
        // The first segment's prompt here, so that the options' errors are the caller's; the
        // later ones are built as their turn comes (one segment's prompt in memory at a time).
        spec.prompt =
            build_prompt(ctx, m.config(), m.tokenizer(), m.talker(), m.predictor(), request);
        spec.request = request;
        spec.later_segments.assign(std::make_move_iterator(segments.begin() + 1),
                                   std::make_move_iterator(segments.end()));
    }
    // The voice and the model stay alive while the job may point to them.
    struct Owned {
        std::shared_ptr<const Model::Impl> model;
        Voice voice;
    };
    spec.keep_alive = std::make_shared<Owned>(Owned{model, options.voice});
    spec.voice = request.voice;
    if (audio) spec.codec = &model->codec();
    if (callbacks.on_frame)
        spec.on_frame = [f = std::move(callbacks.on_frame)](int64_t, const int32_t* codes) {
            return f(codes);
        };
    if (audio) spec.on_audio = std::move(callbacks.on_audio);
    const uint64_t seed = spec.params.seed;
    if (callbacks.on_done)
        spec.on_done = [f = std::move(callbacks.on_done), seed, audio](const JobResult& r) {
            f(to_result(r, seed, audio));
        };
    SpeechRequest handle;
    handle.impl_ = std::make_shared<SpeechRequest::Impl>();
    handle.impl_->seed = seed;
    handle.impl_->audio = audio;
    handle.impl_->job = scheduler.submit(std::move(spec));
    return handle;
}

namespace {

const SpeechRequest::Impl& checked(const std::shared_ptr<SpeechRequest::Impl>& impl) {
    if (!impl) throw Error(ErrorCode::invalid_argument, "SpeechRequest: not a submitted request");
    return *impl;
}

}  // namespace

uint64_t SpeechRequest::id() const {
    return checked(impl_).job->id();
}
void SpeechRequest::cancel() {
    checked(impl_).job->cancel();
}
void SpeechRequest::push_text(const std::string& text) {
    checked(impl_).job->push_text(text);
}
void SpeechRequest::flush_text() {
    checked(impl_).job->flush_text();
}
void SpeechRequest::finish_text() {
    checked(impl_).job->finish_text();
}
RequestResult SpeechRequest::wait() {
    const Impl& i = checked(impl_);
    return to_result(i.job->wait(), i.seed, i.audio);
}
bool SpeechRequest::done() const {
    return checked(impl_).job->done();
}

Scheduler::Scheduler(const Model& model, const SchedulerOptions& options) {
    if (!model.impl()) throw Error(ErrorCode::invalid_argument, "Scheduler: model not loaded");
    impl_.reset(
        new Impl{model.impl(), FrameScheduler(model.impl()->model, runtime_options(options))});
}

Scheduler::~Scheduler() = default;

SpeechRequest Scheduler::submit(const std::string& text, const SynthesisOptions& options,
                                RequestCallbacks callbacks) {
    return impl_->submit(text, options, std::move(callbacks), false);
}

SpeechRequest Scheduler::submit_incremental(const std::string& text,
                                            const SynthesisOptions& options,
                                            RequestCallbacks callbacks) {
    return impl_->submit(text, options, std::move(callbacks), true);
}

Scheduler::Load Scheduler::load() const {
    const FrameScheduler::Load l = impl_->scheduler.load();
    return {l.active, l.queued, l.frames};
}

}  // namespace qwen3tts
