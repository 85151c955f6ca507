// speak|codes --batch FILE.jsonl --out-dir DIR: every request of the file (one JSON object per
// line) runs at once through one Scheduler, each written atomically to DIR/<id>.<ext>. A bad
// line or a failed request is reported with its line number and does not stop the others;
// the exit status is 1 when any failed.
#include "batch.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>

#include "json_line.hpp"
#include "synthesis_args.hpp"

namespace qwen3tts::cli {

namespace {

constexpr size_t kMaxLineBytes = size_t(1) << 20;

struct BatchLine {
    int64_t number = 0;  // 1-based
    std::string text;
    std::string error;  // set: the line could not be read
};

// The lines of the file, each at most kMaxLineBytes long (a longer one is an error of that
// line, and is not kept in memory); blank lines are skipped.
std::vector<BatchLine> read_lines(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw Error(ErrorCode::io, path + ": cannot open for reading");
    std::vector<BatchLine> lines;
    BatchLine line;
    line.number = 1;
    bool too_long = false;
    auto flush = [&] {
        if (too_long)
            line.error = "the line is longer than " + std::to_string(kMaxLineBytes) + " bytes";
        if (too_long || line.text.find_first_not_of(" \t\r") != std::string::npos)
            lines.push_back(line);
        line.text.clear();
        line.error.clear();
        too_long = false;
        ++line.number;
    };
    char buf[65536];
    while (f.read(buf, sizeof buf) || f.gcount() > 0) {
        for (std::streamsize i = 0; i < f.gcount(); ++i) {
            if (buf[i] == '\n') {
                flush();
            } else if (line.text.size() < kMaxLineBytes) {
                line.text += buf[i];
            } else {
                too_long = true;
            }
        }
    }
    if (f.bad()) throw Error(ErrorCode::io, path + ": read error");
    if (!line.text.empty() || too_long) flush();
    return lines;
}

// An output file stem: letters, digits, '.', '_', '-', not starting with '.' (no paths).
void check_id(const std::string& id) {
    if (id.empty()) throw Error(ErrorCode::invalid_argument, "\"id\" is empty");
    if (id.size() > 200)
        throw Error(ErrorCode::invalid_argument, "\"id\" is longer than 200 characters");
    for (char c : id)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-')
            throw Error(ErrorCode::invalid_argument,
                        "\"id\" '" + id +
                            "' may hold only letters, digits, '.', '_' and '-' (it names the "
                            "output file)");
    if (id[0] == '.')
        throw Error(ErrorCode::invalid_argument, "\"id\" '" + id + "' must not start with '.'");
}

// The file extension of an audio format name ("" = wav).
std::string extension_of(const std::string& format) {
    if (format.empty() || format == "wav" || format == "wav-f32") return "wav";
    if (format == "opus") return "ogg";
    if (format == "flac" || format == "mp3" || format == "pcm" || format == "npy") return format;
    throw Error(
        ErrorCode::invalid_argument,
        "unknown audio format '" + format + "' (known: wav, wav-f32, flac, opus, mp3, pcm, npy)");
}

const JsonValue& typed(const std::string& key, const JsonValue& v, JsonValue::Kind kind,
                       const char* what) {
    if (v.kind != kind)
        throw Error(ErrorCode::invalid_argument,
                    "\"" + key + "\" must be " + what +
                        (v.kind == JsonValue::Kind::number ? ", got " + v.text : ""));
    return v;
}

std::string string_field(const std::string& key, const JsonValue& v) {
    return typed(key, v, JsonValue::Kind::string, "a string").text;
}

bool bool_field(const std::string& key, const JsonValue& v) {
    return typed(key, v, JsonValue::Kind::boolean, "true or false").boolean;
}

double number_field(const std::string& key, const JsonValue& v) {
    return std::strtod(typed(key, v, JsonValue::Kind::number, "a number").text.c_str(), nullptr);
}

// An integer in [min, max] written without fraction or exponent.
uint64_t integer_field(const std::string& key, const JsonValue& v, uint64_t min, uint64_t max) {
    const std::string& s = typed(key, v, JsonValue::Kind::number, "an integer").text;
    errno = 0;
    const unsigned long long n = s.find_first_not_of("0123456789") == std::string::npos
                                     ? std::strtoull(s.c_str(), nullptr, 10)
                                     : 0;
    if (s.find_first_not_of("0123456789") != std::string::npos || errno == ERANGE || n < min ||
        n > max)
        throw Error(ErrorCode::invalid_argument, "\"" + key + "\" must be an integer in " +
                                                     std::to_string(min) + " ... " +
                                                     std::to_string(max) + ", got " + s);
    return n;
}

float positive(const std::string& key, const JsonValue& v) {
    const double d = number_field(key, v);
    if (!(d > 0) || d > 1e30)
        throw Error(ErrorCode::invalid_argument, "\"" + key + "\" must be > 0, got " + v.text);
    return float(d);
}

struct Request {
    int64_t line = 0;
    std::string id, text, format, path;
    SynthesisOptions options;
};

// One line → a request on top of the command line's options.
Request parse_request(const BatchLine& line, const Model& model, const SynthesisOptions& defaults,
                      bool audio) {
    if (!line.error.empty()) throw Error(ErrorCode::invalid_argument, line.error);
    Request r;
    r.line = line.number;
    r.options = defaults;
    SynthesisOptions& o = r.options;
    bool has_id = false, has_text = false;
    std::optional<std::string> ref_audio, ref_text;
    bool x_vector_only = false, has_voice = false;
    for (const auto& [key, v] : parse_json_object(line.text)) {
        if (key == "id") {
            r.id = string_field(key, v);
            has_id = true;
        } else if (key == "text") {
            r.text = string_field(key, v);
            has_text = true;
        } else if (key == "speaker") {
            o.speaker = string_field(key, v);
        } else if (key == "language") {
            o.language = string_field(key, v);
        } else if (key == "instruct") {
            o.instruct = string_field(key, v);
        } else if (key == "voice") {
            o.voice = Voice::load(string_field(key, v));
            has_voice = true;
        } else if (key == "ref_audio") {
            ref_audio = string_field(key, v);
        } else if (key == "ref_text") {
            ref_text = string_field(key, v);
        } else if (key == "x_vector_only") {
            x_vector_only = bool_field(key, v);
        } else if (key == "text_layout") {
            o.text_layout = string_field(key, v);
        } else if (key == "seed") {
            o.seed = integer_field(key, v, 0, UINT64_MAX);
        } else if (key == "greedy") {
            o.talker.do_sample = o.predictor.do_sample = !bool_field(key, v);
        } else if (key == "temperature") {
            o.talker.temperature = positive(key, v);
        } else if (key == "top_k") {
            o.talker.top_k = int(integer_field(key, v, 0, INT32_MAX));
        } else if (key == "top_p") {
            const double p = number_field(key, v);
            if (!(p > 0 && p <= 1))
                throw Error(ErrorCode::invalid_argument,
                            "\"top_p\" must be in (0, 1], got " + v.text);
            o.talker.top_p = float(p);
        } else if (key == "repetition_penalty") {
            o.talker.repetition_penalty = positive(key, v);
        } else if (key == "max_frames") {
            o.max_frames = int(integer_field(key, v, 1, INT32_MAX));
        } else if (key == "segment_chars") {
            o.segment_chars = int(integer_field(key, v, 0, INT32_MAX));
        } else if (key == "format" && audio) {
            r.format = string_field(key, v);
        } else {
            throw Error(ErrorCode::invalid_argument,
                        "unknown field \"" + key +
                            "\" (fields: id, text, speaker, language, instruct, voice, ref_audio, "
                            "ref_text, x_vector_only, text_layout, seed, greedy, temperature, "
                            "top_k, top_p, repetition_penalty, max_frames, segment_chars" +
                            (audio ? ", format)" : ")"));
        }
    }
    if (!has_id || !has_text)
        throw Error(ErrorCode::invalid_argument,
                    std::string(!has_id && !has_text ? "\"id\" and \"text\" are"
                                : has_id             ? "\"text\" is"
                                                     : "\"id\" is") +
                        " required");
    check_id(r.id);
    const size_t bad = invalid_utf8_offset(r.text);
    if (bad != std::string::npos)
        throw Error(ErrorCode::invalid_argument,
                    "\"text\": invalid UTF-8 at byte offset " + std::to_string(bad));
    if (ref_audio) {
        if (has_voice)
            throw Error(ErrorCode::invalid_argument,
                        "give either \"voice\" or \"ref_audio\", not both");
        VoiceCloneOptions vo;
        vo.x_vector_only = x_vector_only;
        if (ref_text) vo.ref_text = *ref_text;
        o.voice = model.clone_voice(*ref_audio, vo);
    } else if (ref_text || x_vector_only) {
        throw Error(ErrorCode::invalid_argument,
                    "\"ref_text\" and \"x_vector_only\" need \"ref_audio\"");
    }
    require_speaker(model, o);
    return r;
}

// A request submitted to the scheduler, with what its callbacks fill.
struct Running {
    Request request;
    SpeechRequest handle;
    std::vector<int32_t> codes;
    std::unique_ptr<AudioFileWriter> writer;
};

}  // namespace

int run_batch(const Args& args, bool audio) {
    const char* command = audio ? "speak" : "codes";
    for (const char* single : {"text", "out", "format", "stream"})
        if (args.declares(single) && args.has(single))
            throw Error(ErrorCode::invalid_argument,
                        std::string("--") + single +
                            " is for one request; with --batch each line gives its own "
                            "(see docs/cli.md)");
    if (args.flag("incremental"))
        throw Error(ErrorCode::invalid_argument, "--incremental and --batch do not go together");
    if (!args.has("out-dir"))
        throw Error(ErrorCode::invalid_argument, "--batch needs --out-dir DIR");
    const std::string batch_path = args.get("batch");
    const std::string dir = args.get("out-dir");
    const std::vector<BatchLine> lines = read_lines(batch_path);
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec || !std::filesystem::is_directory(dir))
        throw Error(ErrorCode::io, "--out-dir " + dir + ": cannot create the directory" +
                                       (ec ? " (" + ec.message() + ")" : ""));

    if (audio && args.get("codec-decode", "streaming") != "streaming")
        throw Error(ErrorCode::invalid_argument,
                    "--batch decodes as frames come: --codec-decode must be streaming");
    check_synthesis_args(args);
    SchedulerOptions so;
    so.max_batch = args.get_int("max-batch", so.max_batch, 1);
    so.max_queue = int(std::min<size_t>(lines.size(), INT32_MAX));
    so.engine = parse_engine(args);

    const Model model = load_model(args);
    const SynthesisOptions defaults = parse_options(args, model);

    int failed = 0;
    auto report_failure = [&](int64_t line, const std::string& message) {
        std::fprintf(stderr, "qwen3tts %s: %s:%lld: error: %s\n", command, batch_path.c_str(),
                     static_cast<long long>(line), message.c_str());
        ++failed;
    };
    std::vector<std::unique_ptr<Running>> running;
    std::map<std::string, int64_t> ids;
    {
        Scheduler scheduler(model, so);
        for (const BatchLine& line : lines) {
            try {
                auto run = std::make_unique<Running>();
                run->request = parse_request(line, model, defaults, audio);
                Request& r = run->request;
                const auto [it, fresh] = ids.emplace(r.id, r.line);
                if (!fresh)
                    throw Error(ErrorCode::invalid_argument, "\"id\" '" + r.id +
                                                                 "' is already used by line " +
                                                                 std::to_string(it->second));
                r.path = dir + "/" + r.id + "." + (audio ? extension_of(r.format) : "npy");
                RequestCallbacks cb;
                Running* p = run.get();
                if (audio) {
                    // Opened with the first audio, so that a long batch does not hold a
                    // file per waiting request.
                    cb.on_audio = [p, &model](const float* s, size_t n) {
                        if (!p->writer)
                            p->writer = std::make_unique<AudioFileWriter>(
                                p->request.path, model.sample_rate(), p->request.format);
                        p->writer->write(s, n);
                        return true;
                    };
                } else {
                    cb.on_frame = [p](const int32_t* f) {
                        p->codes.insert(p->codes.end(), f, f + 16);
                        return true;
                    };
                }
                run->handle = scheduler.submit(r.text, r.options, std::move(cb));
                running.push_back(std::move(run));
            } catch (const std::exception& e) {
                report_failure(line.number, e.what());
            }
        }
        for (auto& run : running) {
            const Request& r = run->request;
            const RequestResult res = run->handle.wait();
            try {
                if (res.status != RequestResult::Status::completed)
                    throw Error(res.error_code, res.error);
                if (audio) {
                    if (!run->writer)
                        run->writer = std::make_unique<AudioFileWriter>(r.path, model.sample_rate(),
                                                                        r.format);
                    run->writer->finish();
                    run->writer.reset();
                } else {
                    save_codes_npy(r.path, run->codes, model);
                    run->codes = {};
                }
                const GenerationReport& g = res.report.generation;
                std::fprintf(stderr, "qwen3tts: line %lld (%s): %lld frames (%s) → %s; seed %llu\n",
                             static_cast<long long>(r.line), r.id.c_str(),
                             static_cast<long long>(g.frames),
                             g.stopped_at_eos ? "end of speech" : "frame limit reached",
                             r.path.c_str(), static_cast<unsigned long long>(g.seed));
            } catch (const std::exception& e) {
                run->writer.reset();  // a partial file is removed
                report_failure(r.line, e.what());
            }
        }
    }
    const int total = int(lines.size());
    std::fprintf(stderr, "qwen3tts: %d of %d requests written to %s%s\n", total - failed, total,
                 dir.c_str(), failed ? (", " + std::to_string(failed) + " failed").c_str() : "");
    return failed ? 1 : 0;
}

}  // namespace qwen3tts::cli
