// Teacher-forced accuracy of quantized weights (docs/quantization.md). The bf16 model generates
// frames for a few requests (greedy, and sampled with a fixed seed; end of speech suppressed so
// every case has exactly N frames); each quantized model then replays exactly those frames (same
// prompt, same codes fed back) and its raw logits are compared with bf16's at every step:
// codebook 0 (talker codec_head) and codebooks 1-15 (code predictor lm_heads).
//   quant_accuracy <model dir> [--frames N] [--cases N] [--threads T]
//                  [--settings "q8;q4;talker=q4,predictor=q8;q8+heads"]
// A setting is a --quant value (a q4 component's heads are q8 there); "+heads" makes every
// quantized component's heads q8, "-heads" keeps them all as stored.
// Prints a markdown table. Cosine and relative error are over the whole logit vector; the
// relative error of a step is max|q - r| / max|r|; top-1 compares the argmax over the codes the
// sampler may pick (codebook 0: [0, vocab - 1024), the control ids are always suppressed).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "api/option_parsing.hpp"
#include "core/error.hpp"
#include "core/thread_pool.hpp"
#include "model/prompt.hpp"
#include "model/tts_model.hpp"
#include "runtime/sampler.hpp"

using namespace qwen3tts;

namespace {

struct Case {
    std::string group;  // rows of the table: golden, greedy, sampled
    PromptRequest request;
    bool sampled = false;
};

std::vector<Case> cases(const ModelConfig& config) {
    const auto NS = TextLayout::non_streaming, ST = TextLayout::streaming;
    const std::string hello = "Hello world, this is a test.";
    const std::string nihao = "你好，欢迎使用语音合成。";
    const std::string en =
        "The quick brown fox jumps over the lazy dog, and then it runs far away into the woods.";
    const std::string zh = "其实我真的有发现，我是一个特别善于观察别人情绪的人。";
    auto req = [](const std::string& text, const std::string& lang, const std::string& speaker,
                  TextLayout layout) {
        PromptRequest r;
        r.text = text;
        r.language = lang;
        r.speaker = speaker;
        r.layout = layout;
        return r;
    };
    std::vector<Case> out;
    if (config.type != ModelType::custom_voice)
        throw Error(ErrorCode::invalid_argument, "quant_accuracy takes a CustomVoice checkpoint");
    // The requests of the real-size golden cases (tests/golden/golden_cases.hpp), where bf16 is
    // exact against the official implementation, and a few more, interleaved so that the first
    // n cases (--cases) mix the groups.
    const Case golden[3] = {{"golden", req(hello, "English", "Ryan", NS)},
                            {"golden", req(nihao, "Chinese", "Dylan", NS)},
                            {"golden", req(hello, "English", "Ryan", ST)}};
    const PromptRequest more[3] = {req(en, "English", "Aiden", NS),
                                   req(zh, "Chinese", "Vivian", NS), req(en, "Auto", "Serena", ST)};
    for (int i = 0; i < 3; ++i) {
        out.push_back(golden[i]);
        out.push_back({"greedy", more[i], false});
        out.push_back({"sampled", more[(i + 1) % 3], true});
    }
    return out;
}

// What the bf16 model did, and what a replay saw: per frame the codes and the raw logits.
struct Trace {
    std::vector<int32_t> frames;          // [F, 16]
    std::vector<float> talker_logits;     // [F, vocab]
    std::vector<float> predictor_logits;  // [F, 15, cp_vocab]
};

// Generates `n_frames` frames (teacher == nullptr) or replays the teacher's frames.
Trace run(const TtsModel& model, const backend::ExecContext& ctx, const Case& c, int n_frames,
          const Trace* teacher) {
    const Talker& talker = model.talker();
    const CodePredictor& predictor = model.predictor();
    const TalkerConfig& tc = model.config().talker;
    const GenerationDefaults& gd = model.config().generation;
    const int64_t H = talker.hidden_size(), V = tc.vocab_size, Vcp = predictor.vocab_size();
    const int n_cb = predictor.n_codebooks();
    const Prompt p =
        build_prompt(ctx, model.config(), model.tokenizer(), talker, predictor, c.request);

    SamplingParams talker_params{c.sampled, gd.temperature, gd.top_k, gd.top_p,
                                 gd.repetition_penalty};
    SamplingParams predictor_params{c.sampled, gd.subtalker_temperature, gd.subtalker_top_k,
                                    gd.subtalker_top_p, 1.0f};
    Sampler sampler(1234);

    KvCache cache = talker.stack().make_cache(p.length + n_frames);
    DecoderScratch scratch;
    scratch.reserve(talker.stack().shape(), p.length);
    KvCache cp_cache = predictor.make_cache();
    KvCache* cp_caches[1] = {&cp_cache};
    CodePredictor::Scratch cp_scratch;
    predictor.reserve(cp_scratch, 1);
    std::vector<float> x(p.embeds), hidden(size_t(p.length * H)), processed(static_cast<size_t>(V));
    talker.stack().forward(ctx, x.data(), p.length, cache, scratch, hidden.data());
    const float* past = hidden.data() + (p.length - 1) * H;

    Trace t;
    t.frames.resize(size_t(n_frames * n_cb));
    t.talker_logits.resize(size_t(n_frames * V));
    t.predictor_logits.resize(size_t(n_frames * (n_cb - 1) * Vcp));
    std::vector<int32_t> distinct;
    std::vector<float> step(static_cast<size_t>(H));
    for (int f = 0; f < n_frames; ++f) {
        float* logits = t.talker_logits.data() + size_t(f) * size_t(V);
        talker.logits(ctx, past, 1, logits);
        int32_t* frame = t.frames.data() + size_t(f * n_cb);
        if (teacher) {
            frame[0] = teacher->frames[size_t(f * n_cb)];
        } else {
            processed.assign(logits, logits + V);
            apply_talker_processors(processed.data(), V, distinct, f,
                                    talker_params.repetition_penalty, 2, tc.codec_eos_id);
            processed[size_t(tc.codec_eos_id)] = -std::numeric_limits<float>::infinity();
            frame[0] = sampler.choose(processed.data(), V, talker_params);
        }
        if (std::find(distinct.begin(), distinct.end(), frame[0]) == distinct.end())
            distinct.push_back(frame[0]);
        predictor.predict(
            ctx, past, 1, frame, cp_caches, cp_scratch, [&](int64_t, int g, float* lg) {
                std::copy(lg, lg + Vcp,
                          t.predictor_logits.begin() + (f * (n_cb - 1) + g - 1) * Vcp);
                if (teacher) return teacher->frames[size_t(f * n_cb + g)];
                return sampler.choose(lg, Vcp, predictor_params);
            });
        const float* text = f < p.n_trailing ? p.trailing.data() + f * H : p.tts_pad.data();
        std::copy(text, text + H, step.begin());
        add_frame_embedding(talker, predictor, frame, step.data());
        talker.stack().forward(ctx, step.data(), 1, cache, scratch, hidden.data());
        past = hidden.data();
    }
    return t;
}

struct Stats {
    double cos_sum = 0, cos_min = 1, rel_max = 0;
    int64_t steps = 0, same = 0;

    void add(const float* q, const float* r, int64_t n, int64_t n_valid) {
        double dot = 0, qq = 0, rr = 0, diff = 0, mag = 0;
        for (int64_t i = 0; i < n; ++i) {
            dot += double(q[i]) * r[i];
            qq += double(q[i]) * q[i];
            rr += double(r[i]) * r[i];
            diff = std::max(diff, double(std::fabs(q[i] - r[i])));
            mag = std::max(mag, double(std::fabs(r[i])));
        }
        const double cos = dot / std::sqrt(qq * rr);
        cos_sum += cos;
        cos_min = std::min(cos_min, cos);
        rel_max = std::max(rel_max, diff / mag);
        ++steps;
        same += std::max_element(q, q + n_valid) - q == std::max_element(r, r + n_valid) - r;
    }
};

struct Row {
    Stats talker, predictor;
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    size_t begin = 0;
    while (begin <= s.size()) {
        const size_t end = std::min(s.find(sep, begin), s.size());
        if (end > begin) out.push_back(s.substr(begin, end - begin));
        begin = end + 1;
    }
    return out;
}

}  // namespace

int main(int argc, char** argv) try {
    if (argc < 2) {
        std::fprintf(stderr,
                     "usage: quant_accuracy <model dir> [--frames N] [--threads T] "
                     "[--cases N] [--settings \"q8;q4;q8+heads;q4-heads\"]\n");
        return 2;
    }
    const std::string dir = argv[1];
    int n_frames = 48, n_cases = 9, threads = 2;
    std::string settings =
        "q8;q4;talker=q4,predictor=q8;talker=q8,predictor=q4;talker=q8;predictor=q4";
    for (int i = 2; i + 1 < argc; i += 2) {
        const std::string key = argv[i], value = argv[i + 1];
        if (key == "--frames")
            n_frames = std::atoi(value.c_str());
        else if (key == "--cases")
            n_cases = std::atoi(value.c_str());
        else if (key == "--threads")
            threads = std::atoi(value.c_str());
        else if (key == "--settings")
            settings = value;
        else
            throw Error(ErrorCode::invalid_argument, "unknown option " + key);
    }
    ThreadPool pool(threads);
    backend::ExecContext ctx;
    ctx.pool = &pool;

    auto t0 = std::chrono::steady_clock::now();
    std::vector<Trace> reference;
    std::vector<Case> all;
    {
        const auto model = TtsModel::load(dir);
        std::fprintf(stderr, "bf16 load %.2f s\n", seconds_since(t0));
        all = cases(model->config());
        all.resize(std::min(all.size(), size_t(std::max(n_cases, 1))));
        t0 = std::chrono::steady_clock::now();
        for (const Case& c : all) reference.push_back(run(*model, ctx, c, n_frames, nullptr));
        std::fprintf(stderr, "bf16 generation %.1f s\n", seconds_since(t0));
    }

    std::printf(
        "| setting | cases | cb0 cosine mean (min) | cb0 max rel err | cb0 top-1 | "
        "cb1-15 cosine mean (min) | cb1-15 max rel err | cb1-15 top-1 |\n");
    std::printf("|---|---|---|---|---|---|---|---|\n");
    for (const std::string& setting : split(settings, ';')) {
        t0 = std::chrono::steady_clock::now();
        const size_t suffix = std::min(setting.find("+heads"), setting.find("-heads"));
        QuantPlan plan = parse_quant_plan(setting.substr(0, suffix));
        if (suffix != std::string::npos) {
            const bool heads = setting[suffix] == '+';
            const auto q8 = std::optional(backend::QuantFormat::q8);
            plan.talker_head = heads && plan.talker ? q8 : std::nullopt;
            plan.predictor_heads = heads && plan.predictor ? q8 : std::nullopt;
        }
        const auto model = TtsModel::load(dir, PretokenizerRegex::qwen2, LoadMode::mmap, plan);
        const double load_s = seconds_since(t0);
        const int64_t V = model->config().talker.vocab_size, Vcp = model->predictor().vocab_size();
        const int n_cb = model->predictor().n_codebooks();
        std::map<std::string, Row> rows;
        t0 = std::chrono::steady_clock::now();
        for (size_t i = 0; i < all.size(); ++i) {
            const Trace& r = reference[i];
            const Trace q = run(*model, ctx, all[i], n_frames, &r);
            for (const std::string& group : {all[i].group, std::string("all")}) {
                Row& row = rows[group];
                for (int f = 0; f < n_frames; ++f) {
                    row.talker.add(q.talker_logits.data() + f * V, r.talker_logits.data() + f * V,
                                   V, V - 1024);
                    for (int g = 0; g + 1 < n_cb; ++g) {
                        const size_t at = size_t((f * (n_cb - 1) + g) * Vcp);
                        row.predictor.add(q.predictor_logits.data() + at,
                                          r.predictor_logits.data() + at, Vcp, Vcp);
                    }
                }
            }
        }
        std::fprintf(stderr, "%s: load %.2f s, replay %.1f s\n", setting.c_str(), load_s,
                     seconds_since(t0));
        for (const char* group : {"golden", "greedy", "sampled", "all"}) {
            const Row& row = rows[group];
            const int64_t in_group = row.talker.steps / n_frames;
            std::printf(
                "| %s | %s (%lld×%d) | %.5f (%.5f) | %.4f | %.3f | %.5f (%.5f) | %.4f | "
                "%.3f |\n",
                setting.c_str(), group, static_cast<long long>(in_group), n_frames,
                row.talker.cos_sum / double(row.talker.steps), row.talker.cos_min,
                row.talker.rel_max, double(row.talker.same) / double(row.talker.steps),
                row.predictor.cos_sum / double(row.predictor.steps), row.predictor.cos_min,
                row.predictor.rel_max, double(row.predictor.same) / double(row.predictor.steps));
        }
        std::fflush(stdout);
    }
    return 0;
} catch (const std::exception& e) {
    std::fprintf(stderr, "quant_accuracy: %s\n", e.what());
    return 1;
}
