// C API: the Scheduler (many requests at once) and its request handles.
#include <atomic>
#include <memory>
#include <mutex>
#include <string>

#include "api/c_api_options.hpp"
#include "api/c_api_support.hpp"

using qwen3tts::capi::guarded;
using qwen3tts::capi::require;

struct qwen3tts_scheduler {
    qwen3tts_scheduler(const qwen3tts::Model& m, const qwen3tts::SchedulerOptions& o)
        : model(m), scheduler(m, o) {}
    qwen3tts::Model model;
    qwen3tts::Scheduler scheduler;
};

// What the C++ callbacks of a request share with its handle: the caller's callbacks and
// whether one of them asked to stop (reported as cancelled = 1).
struct CRequestCalls {
    qwen3tts_request_callbacks c{};
    size_t n_codebook = 0;
    std::atomic<bool> stopped{false};
};

struct qwen3tts_request {
    qwen3tts::SpeechRequest request;
    std::shared_ptr<CRequestCalls> calls;
    // The outcome, stored by the first wait (it never changes): qwen3tts_request_result::error
    // points into it.
    std::once_flag once;
    qwen3tts::RequestResult result;
};

namespace {

void transfer_scheduler_options(const void* from, void* to, size_t size) {
    using O = qwen3tts_scheduler_options;
    qwen3tts::capi::copy_fields(from, to, size, &O::max_batch, &O::max_queue, &O::threads);
}

void transfer_load(const void* from, void* to, size_t size) {
    using L = qwen3tts_scheduler_load;
    qwen3tts::capi::copy_fields(from, to, size, &L::active, &L::queued, &L::frames);
}

void transfer_callbacks(const void* from, void* to, size_t size) {
    using C = qwen3tts_request_callbacks;
    qwen3tts::capi::copy_fields(from, to, size, &C::on_frame, &C::on_audio, &C::on_done,
                                &C::user_data);
}

void transfer_result(const void* from, void* to, size_t size) {
    using R = qwen3tts_request_result;
    qwen3tts::capi::copy_fields(from, to, size, &R::status, &R::error_code, &R::error);
}

qwen3tts_scheduler_options default_scheduler_options() {
    const qwen3tts::SchedulerOptions d;
    qwen3tts_scheduler_options o{};
    o.struct_size = sizeof o;
    o.max_batch = d.max_batch;
    o.max_queue = d.max_queue;
    o.threads = d.engine.threads;
    return o;
}

int c_status(qwen3tts::RequestResult::Status s) {
    switch (s) {
        case qwen3tts::RequestResult::Status::completed:
            return QWEN3TTS_REQUEST_COMPLETED;
        case qwen3tts::RequestResult::Status::cancelled:
            return QWEN3TTS_REQUEST_CANCELLED;
        case qwen3tts::RequestResult::Status::failed:
            break;
    }
    return QWEN3TTS_REQUEST_FAILED;
}

// The C++ callbacks calling the caller's C ones. A C callback cannot throw, so these only
// stop the request when asked to.
qwen3tts::RequestCallbacks cpp_callbacks(const std::shared_ptr<CRequestCalls>& calls) {
    qwen3tts::RequestCallbacks cb;
    if (calls->c.on_frame)
        cb.on_frame = [calls](const int32_t* frame) {
            if (calls->c.on_frame(frame, calls->n_codebook, calls->c.user_data) == 0) return true;
            calls->stopped = true;
            return false;
        };
    if (calls->c.on_audio)
        cb.on_audio = [calls](const float* samples, size_t n) {
            if (calls->c.on_audio(samples, n, calls->c.user_data) == 0) return true;
            calls->stopped = true;
            return false;
        };
    if (calls->c.on_done)
        cb.on_done = [calls](const qwen3tts::RequestResult& r) {
            const int status = c_status(r.status);
            const int code = status == QWEN3TTS_REQUEST_FAILED ? int(r.error_code) : 0;
            calls->c.on_done(status, code, code ? r.error.c_str() : "", calls->c.user_data);
        };
    return cb;
}

int submit(qwen3tts_scheduler* scheduler, const char* text, const qwen3tts_options* options,
           const qwen3tts_request_callbacks* callbacks, qwen3tts_request** out, bool incremental,
           const char* function) {
    return guarded([&] {
        require(out, function, "out");
        *out = nullptr;
        require(scheduler, function, "scheduler");
        require(text, function, "text");
        auto calls = std::make_shared<CRequestCalls>();
        calls->c.struct_size = sizeof calls->c;
        if (callbacks)
            transfer_callbacks(
                callbacks, &calls->c,
                qwen3tts::capi::struct_size_of(callbacks, "qwen3tts_request_callbacks",
                                               "use qwen3tts_request_callbacks_init"));
        calls->n_codebook = qwen3tts::capi::frame_width(scheduler->model);
        const qwen3tts::SynthesisOptions o = qwen3tts::capi::to_options(scheduler->model, options);
        auto handle = std::make_unique<qwen3tts_request>();
        handle->calls = calls;
        handle->request =
            incremental ? scheduler->scheduler.submit_incremental(text, o, cpp_callbacks(calls))
                        : scheduler->scheduler.submit(text, o, cpp_callbacks(calls));
        *out = handle.release();
    });
}

}  // namespace

extern "C" {

void qwen3tts_scheduler_options_init(qwen3tts_scheduler_options* options, size_t struct_size) {
    qwen3tts::capi::init_struct(options, struct_size, default_scheduler_options(),
                                transfer_scheduler_options);
}

void qwen3tts_request_callbacks_init(qwen3tts_request_callbacks* callbacks, size_t struct_size) {
    qwen3tts_request_callbacks none{};
    none.struct_size = sizeof none;
    qwen3tts::capi::init_struct(callbacks, struct_size, none, transfer_callbacks);
}

int qwen3tts_scheduler_new(const qwen3tts_model* model, const qwen3tts_scheduler_options* options,
                           qwen3tts_scheduler** out) {
    return guarded([&] {
        require(out, "qwen3tts_scheduler_new", "out");
        *out = nullptr;
        require(model, "qwen3tts_scheduler_new", "model");
        qwen3tts_scheduler_options c = default_scheduler_options();
        if (options)
            transfer_scheduler_options(
                options, &c,
                qwen3tts::capi::struct_size_of(options, "qwen3tts_scheduler_options",
                                               "use qwen3tts_scheduler_options_init"));
        qwen3tts::SchedulerOptions o;
        o.max_batch = c.max_batch;
        o.max_queue = c.max_queue;
        o.engine.threads = c.threads;
        *out = new qwen3tts_scheduler(model->model, o);
    });
}

void qwen3tts_scheduler_free(qwen3tts_scheduler* scheduler) {
    delete scheduler;
}

int qwen3tts_scheduler_get_load(const qwen3tts_scheduler* scheduler,
                                qwen3tts_scheduler_load* load) {
    return guarded([&] {
        require(scheduler, "qwen3tts_scheduler_get_load", "scheduler");
        require(load, "qwen3tts_scheduler_get_load", "load");
        const size_t size = qwen3tts::capi::struct_size_of(
            load, "qwen3tts_scheduler_load", "set it to sizeof(qwen3tts_scheduler_load)");
        const qwen3tts::Scheduler::Load l = scheduler->scheduler.load();
        qwen3tts_scheduler_load c{};
        c.active = l.active;
        c.queued = l.queued;
        c.frames = l.frames;
        transfer_load(&c, load, size);
    });
}

int qwen3tts_scheduler_submit(qwen3tts_scheduler* scheduler, const char* text,
                              const qwen3tts_options* options,
                              const qwen3tts_request_callbacks* callbacks, qwen3tts_request** out) {
    return submit(scheduler, text, options, callbacks, out, false, "qwen3tts_scheduler_submit");
}

int qwen3tts_scheduler_submit_incremental(qwen3tts_scheduler* scheduler, const char* text,
                                          const qwen3tts_options* options,
                                          const qwen3tts_request_callbacks* callbacks,
                                          qwen3tts_request** out) {
    return submit(scheduler, text, options, callbacks, out, true,
                  "qwen3tts_scheduler_submit_incremental");
}

int qwen3tts_request_cancel(qwen3tts_request* request) {
    return guarded([&] {
        require(request, "qwen3tts_request_cancel", "request");
        request->request.cancel();
    });
}

int qwen3tts_request_push_text(qwen3tts_request* request, const char* text) {
    return guarded([&] {
        require(request, "qwen3tts_request_push_text", "request");
        require(text, "qwen3tts_request_push_text", "text");
        request->request.push_text(text);
    });
}

int qwen3tts_request_finish_text(qwen3tts_request* request) {
    return guarded([&] {
        require(request, "qwen3tts_request_finish_text", "request");
        request->request.finish_text();
    });
}

int qwen3tts_request_flush_text(qwen3tts_request* request) {
    return guarded([&] {
        require(request, "qwen3tts_request_flush_text", "request");
        request->request.flush_text();
    });
}

int qwen3tts_request_wait(qwen3tts_request* request, qwen3tts_request_result* result,
                          qwen3tts_report* report) {
    return guarded([&] {
        require(request, "qwen3tts_request_wait", "request");
        const size_t result_size =
            result ? qwen3tts::capi::struct_size_of(result, "qwen3tts_request_result",
                                                    "set it to sizeof(qwen3tts_request_result)")
                   : 0;
        const size_t size = qwen3tts::capi::report_size(report);
        std::call_once(request->once, [&] { request->result = request->request.wait(); });
        const qwen3tts::RequestResult& r = request->result;
        qwen3tts_request_result c{};
        c.status = c_status(r.status);
        const bool failed = c.status == QWEN3TTS_REQUEST_FAILED;
        c.error_code = failed ? int(r.error_code) : 0;
        c.error = failed ? r.error.c_str() : "";
        if (result) transfer_result(&c, result, result_size);
        qwen3tts::capi::hand_out_report(
            r.report, c.status == QWEN3TTS_REQUEST_CANCELLED || request->calls->stopped, report,
            size);
    });
}

int qwen3tts_request_done(const qwen3tts_request* request) {
    try {
        return request && request->request.done() ? 1 : 0;
    } catch (...) {
        return 0;
    }
}

void qwen3tts_request_free(qwen3tts_request* request) {
    delete request;
}

}  // extern "C"
