#include "server/serve.hpp"

#include <signal.h>

#include <atomic>
#include <future>
#include <thread>

#include "server/api_error.hpp"
#include "server/scheduler_service.hpp"

namespace qwen3tts::server {

namespace {

// One short synthesis, so the first real request does not pay for cold caches and lazily
// loaded parts (the codec decoder). Base models need a voice, so they skip it.
void warm_up(const Model& model, SpeechService& service) {
    const ModelInfo info = model.info();
    if (info.type == "base") return;
    SpeechJob job;
    job.text = "Hello.";
    job.options = model.default_options();
    job.options.max_frames = 2;
    job.options.seed = 0;
    if (info.type == "custom_voice") job.options.speaker = info.speakers.at(0);
    if (info.type == "voice_design") job.options.instruct = "A calm, clear voice.";
    std::promise<SpeechOutcome> done;
    auto ticket = service.submit(
        std::move(job), [](const float*, size_t) {},
        [&done](const SpeechOutcome& o) { done.set_value(o); });
    if (!ticket) throw Error(ErrorCode::internal, "the warm-up request was refused");
    const SpeechOutcome o = done.get_future().get();
    if (o.status == SpeechOutcome::Status::failed)
        throw Error(o.error_code, "warm-up synthesis failed: " + o.error);
}

}  // namespace

int serve(const ServeOptions& options, const std::function<Model()>& load_model, const LogFn& log) {
    // Signals are taken by one thread with sigtimedwait: every thread made from here on
    // inherits the blocked mask, so none of them is interrupted.
    sigset_t stop_signals;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGINT);
    sigaddset(&stop_signals, SIGTERM);
    sigset_t old_mask;
    pthread_sigmask(SIG_BLOCK, &stop_signals, &old_mask);

    ServerApp app(options.api);
    HttpServer http(
        options.http,
        [&app](const HttpRequest& req, std::shared_ptr<HttpResponder> res) {
            app.handle(req, std::move(res));
        },
        [](int status, const std::string& message) { return error_json(status, message); }, log);
    log("listening on http://" + options.http.host + ":" + std::to_string(http.port()) +
        " (loading the model)");

    std::shared_ptr<SpeechService> service;
    std::mutex service_mutex;
    std::atomic<bool> load_failed{false};
    std::atomic<bool> finished{false};
    std::thread loader([&] {
        try {
            const Model model = load_model();
            SchedulerOptions scheduling;
            scheduling.max_batch = int(options.max_batch);
            scheduling.max_queue = int(options.max_queue);
            scheduling.engine = options.engine;
            auto s = std::make_shared<SchedulerService>(model, scheduling);
            {
                std::lock_guard<std::mutex> lock(service_mutex);
                service = s;
            }
            app.set_model(model, s);
            warm_up(model, *s);
            app.set_healthy();
            log("ready: " + model.info().type + " " + model.info().size + ", " +
                std::to_string(options.max_batch) + " request(s) at once, " +
                std::to_string(options.max_queue) + " queued at most");
        } catch (const std::exception& e) {
            log(std::string("error: ") + e.what());
            load_failed = true;
            http.stop();
        }
    });
    std::thread signals([&] {
        const timespec tick{0, 200 * 1000 * 1000};
        while (!finished) {
            const int sig = sigtimedwait(&stop_signals, nullptr, &tick);
            if (sig < 0) continue;
            log(std::string("received ") + (sig == SIGTERM ? "SIGTERM" : "SIGINT") +
                ": finishing the running requests, then exiting");
            http.stop_accepting();
            std::shared_ptr<SpeechService> s;
            {
                std::lock_guard<std::mutex> lock(service_mutex);
                s = service;
            }
            if (s) s->shutdown(std::chrono::seconds(options.shutdown_grace_s));
            http.stop(std::chrono::seconds(2));  // time for the last bytes to go out
            return;
        }
    });
    http.run();
    finished = true;
    loader.join();
    signals.join();
    pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
    return load_failed ? 1 : 0;
}

}  // namespace qwen3tts::server
