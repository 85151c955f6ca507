#include "incremental.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace qwen3tts::cli {

namespace {

// Length of s without an incomplete UTF-8 sequence at its end (the rest of it is still to come).
size_t complete_utf8_length(const std::string& s) {
    const size_t n = s.size();
    for (size_t back = 1; back <= std::min<size_t>(3, n); ++back) {
        const auto c = static_cast<unsigned char>(s[n - back]);
        if ((c & 0xC0) == 0x80) continue;  // a continuation byte: look further back
        const size_t len = (c & 0xE0) == 0xC0   ? 2
                           : (c & 0xF0) == 0xE0 ? 3
                           : (c & 0xF8) == 0xF0 ? 4
                                                : 1;
        return len > back ? n - back : n;
    }
    return n;
}

[[noreturn]] void invalid_utf8(const std::string& text, size_t at) {
    static const char* hex = "0123456789abcdef";
    const auto b = static_cast<unsigned char>(text[at]);
    throw Error(ErrorCode::invalid_argument,
                std::string("--text (standard input): invalid UTF-8 at byte offset ") +
                    std::to_string(at) + " (byte 0x" + hex[b >> 4] + hex[b & 15] + ")");
}

}  // namespace

SynthesisRequest parse_incremental(const Args& args, const Model& model) {
    if (args.get("text") != "-")
        throw Error(ErrorCode::invalid_argument,
                    "--incremental reads the text from standard input as it arrives: give "
                    "--text -");
    SynthesisRequest r;
    r.options = parse_options(args, model);
    require_speaker(model, r.options);
    if (r.options.text_layout == "non-streaming")
        throw Error(ErrorCode::invalid_argument,
                    "--incremental feeds the text in the streaming layout; --text-layout "
                    "non-streaming needs the whole text first");
    r.engine = parse_engine(args);
    return r;
}

SpeechReport run_incremental(const Model& model, const SynthesisRequest& request,
                             RequestCallbacks callbacks) {
    SchedulerOptions so;
    so.max_batch = 1;
    so.engine = request.engine;
    // Destroyed first when reading fails: the request is cancelled before its callbacks' targets
    // go.
    Scheduler scheduler(model, so);
    SpeechRequest r = scheduler.submit_incremental("", request.options, std::move(callbacks));
    std::string text;   // all of standard input so far
    size_t pushed = 0;  // bytes of it handed to the request
    char buf[4096];
    for (;;) {
        const ssize_t got = ::read(STDIN_FILENO, buf, sizeof buf);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0)
            throw Error(ErrorCode::io,
                        std::string("--text -: reading standard input: ") + std::strerror(errno));
        if (got == 0) break;
        text.append(buf, size_t(got));
        // Complete characters only, and line breaks only once more text follows them (a final
        // one is dropped, as for --text -).
        size_t end = complete_utf8_length(text);
        const size_t bad = invalid_utf8_offset(text.substr(pushed, end - pushed));
        if (bad != std::string::npos) invalid_utf8(text, pushed + bad);
        while (end > pushed && (text[end - 1] == '\n' || text[end - 1] == '\r')) --end;
        if (end > pushed) {
            r.push_text(text.substr(pushed, end - pushed));
            pushed = end;
        }
    }
    const size_t bad = invalid_utf8_offset(text.substr(pushed));
    if (bad != std::string::npos) invalid_utf8(text, pushed + bad);
    r.finish_text();
    const RequestResult res = r.wait();
    if (res.status != RequestResult::Status::completed) throw Error(res.error_code, res.error);
    return res.report;
}

}  // namespace qwen3tts::cli
