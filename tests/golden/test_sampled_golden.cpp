// The official sampled runs (tests/data/golden/<variant>/<tag>__sampled__*: generation_config
// defaults after torch.manual_seed(1234)). torch's generator and multinomial cannot be replayed
// bit for bit, so the official codes are teacher-forced through our talker and code predictor
// instead, and two things are checked:
//  (a) our raw talker and code-predictor logits along the official path equal the official
//      ones (the greedy tests' tolerance);
//  (b) every official token has non-zero probability under our processor chain (talker:
//      repetition penalty, min-new-tokens, suppression; both: temperature, top-k, top-p) applied
//      to the official logits with the official history, and also to our own logits.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "golden/golden_cases.hpp"
#include "runtime/sampler.hpp"
#include "runtime/session.hpp"

namespace qwen3tts {
namespace {

using namespace golden_cases;
using testing::compare;
using testing::golden;

void expect_close(const std::vector<float>& actual, const std::vector<float>& expected,
                  const std::string& what, double rel_tol = 1e-4) {
    ASSERT_EQ(actual.size(), expected.size()) << what << ": size differs";
    const auto d = compare(actual, expected);
    EXPECT_LE(d.max_abs, rel_tol * d.max_ref) << what << ": max |diff| " << d.max_abs << " at "
                                              << d.argmax << ", max |ref| " << d.max_ref;
}

// The official call of a case, from index.json "cases".<tag>.generate_kwargs; the talker
// also gets min_new_tokens = 2 and the predictor no repetition penalty (spec talker.md §6).
GenerationParams official_params(const GoldenCase& c) {
    std::ifstream in(testing::golden_dir(c.variant) + "/index.json");
    std::stringstream ss;
    ss << in.rdbuf();
    const auto kw = nlohmann::json::parse(ss.str()).at("cases").at(c.tag).at("generate_kwargs");
    GenerationParams p;
    p.talker = {kw.at("do_sample").get<bool>(), kw.at("temperature").get<float>(),
                kw.at("top_k").get<int>(), kw.at("top_p").get<float>(),
                kw.at("repetition_penalty").get<float>()};
    p.predictor = {kw.at("subtalker_dosample").get<bool>(),
                   kw.at("subtalker_temperature").get<float>(), kw.at("subtalker_top_k").get<int>(),
                   kw.at("subtalker_top_p").get<float>(), 1.0f};
    p.max_new_tokens = kw.at("max_new_tokens").get<int>();
    p.min_new_tokens = 2;
    return p;
}

void expect_same(const SamplingParams& a, const SamplingParams& b, const std::string& what) {
    EXPECT_EQ(a.do_sample, b.do_sample) << what;
    EXPECT_EQ(a.temperature, b.temperature) << what;
    EXPECT_EQ(a.top_k, b.top_k) << what;
    EXPECT_EQ(a.top_p, b.top_p) << what;
    EXPECT_EQ(a.repetition_penalty, b.repetition_penalty) << what;
}

struct ForcedRun {
    std::vector<float> talker_logits;  // [frames + 1, V] raw, step 0 = prefill
    std::vector<float> cp_logits;      // [frames, n_codebooks - 1, cp_vocab] raw
};

// Session::generate's frame loop with the official codes [frames, 16] in place of our draws.
// (The greedy golden tests check that loop itself against the official runs.)
ForcedRun run_forced(const TtsModel& model, const backend::ExecContext& exec, const Prompt& p,
                     const std::vector<int32_t>& codes, int64_t frames) {
    const Talker& talker = model.talker();
    const CodePredictor& predictor = model.predictor();
    const int64_t H = p.hidden, L = p.length, V = model.config().talker.vocab_size;
    const int n_cb = predictor.n_codebooks();
    KvCache cache = talker.stack().make_cache(L + frames);
    DecoderScratch scratch;
    scratch.reserve(talker.stack().shape(), L);
    KvCache cp_cache = predictor.make_cache();
    KvCache* cp_caches[1] = {&cp_cache};
    CodePredictor::Scratch cp_scratch;
    predictor.reserve(cp_scratch, 1);
    std::vector<float> x(p.embeds), hidden(static_cast<size_t>(L * H));
    std::vector<float> step_in(static_cast<size_t>(H));
    talker.stack().forward(exec, x.data(), L, cache, scratch, hidden.data());
    const float* past_hidden = hidden.data() + (L - 1) * H;

    ForcedRun run;
    run.talker_logits.resize(size_t((frames + 1) * V));
    for (int64_t f = 0;; ++f) {
        talker.logits(exec, past_hidden, 1, run.talker_logits.data() + f * V);
        if (f == frames) break;
        const int32_t* official = codes.data() + f * n_cb;
        std::vector<int32_t> frame(official, official + n_cb);
        predictor.predict(exec, past_hidden, 1, frame.data(), cp_caches, cp_scratch,
                          [&](int64_t, int g, float* logits) {
                              run.cp_logits.insert(run.cp_logits.end(), logits,
                                                   logits + predictor.vocab_size());
                              return official[g];
                          });
        const float* text = f < p.n_trailing ? p.trailing.data() + f * H : p.tts_pad.data();
        std::copy(text, text + H, step_in.begin());
        add_frame_embedding(talker, predictor, frame.data(), step_in.data());
        talker.stack().forward(exec, step_in.data(), 1, cache, scratch, hidden.data());
        past_hidden = hidden.data();
    }
    return run;
}

// The probability our warpers give `token` in raw-or-processed logits (0 = removed).
double probability(Sampler& sampler, std::vector<float> z, const SamplingParams& p, int token) {
    sampler.warp(z.data(), int64_t(z.size()), p);
    const double mx = *std::max_element(z.begin(), z.end());
    double total = 0;
    for (float v : z) total += std::exp(double(v) - mx);
    return std::exp(double(z[size_t(token)]) - mx) / total;
}

// (b) for the talker: every official codebook-0 token of steps [0, frames) after the talker
// processors (history = the official tokens before it) and the warpers.
void expect_talker_tokens_allowed(const std::vector<float>& logits,
                                  const std::vector<int32_t>& codes, int64_t frames, int n_cb,
                                  int64_t V, int eos, const GenerationParams& gp,
                                  const std::string& whose) {
    Sampler sampler;
    std::vector<int32_t> distinct;
    for (int64_t s = 0; s < frames; ++s) {
        std::vector<float> z(logits.begin() + s * V, logits.begin() + (s + 1) * V);
        apply_talker_processors(z.data(), V, distinct, s, gp.talker.repetition_penalty,
                                gp.min_new_tokens, eos);
        const int32_t token = codes[size_t(s * n_cb)];
        EXPECT_GT(probability(sampler, z, gp.talker, token), 0.0)
            << whose << " talker logits, step " << s << ": official token " << token
            << " is outside our processed distribution";
        if (std::find(distinct.begin(), distinct.end(), token) == distinct.end())
            distinct.push_back(token);
    }
}

// (b) for the code predictor: logits [n_frames, n_cb - 1, vocab] against the official codes.
void expect_predictor_codes_allowed(const std::vector<float>& logits,
                                    const std::vector<int32_t>& codes, int64_t n_frames, int n_cb,
                                    int64_t vocab, const GenerationParams& gp,
                                    const std::string& whose) {
    Sampler sampler;
    for (int64_t f = 0; f < n_frames; ++f)
        for (int g = 1; g < n_cb; ++g) {
            const auto row = logits.begin() + ((f * (n_cb - 1)) + (g - 1)) * vocab;
            const int32_t code = codes[size_t(f * n_cb + g)];
            EXPECT_GT(
                probability(sampler, std::vector<float>(row, row + vocab), gp.predictor, code), 0.0)
                << whose << " code predictor logits, frame " << f << " codebook " << g
                << ": official code " << code << " is outside our processed distribution";
        }
}

void run_case(const GoldenCase& c, backend::KernelSet kernels) {
    const auto model = load_model(c.variant);
    Session session(model, SessionOptions{2, kernels});
    const std::string g = c.tag + "__";
    const bool clone = model->config().type == ModelType::base;
    const VoiceClonePrompt voice = clone ? golden_voice(c) : VoiceClonePrompt{};
    const Prompt p = session.build_prompt(request(c, clone ? &voice : nullptr));
    expect_close(p.embeds, golden(c.variant, g + "prefill_embeds").to_f32(), "prefill embeds");

    // The official call is the checkpoint's defaults, so our default path is what is checked.
    const GenerationParams gp = official_params(c);
    const GenerationParams defaults = GenerationParams::defaults(model->config().generation);
    expect_same(defaults.talker, gp.talker, "talker defaults vs the official call");
    expect_same(defaults.predictor, gp.predictor, "predictor defaults vs the official call");
    EXPECT_EQ(defaults.min_new_tokens, gp.min_new_tokens);

    const auto ref_codes = golden(c.variant, g + "codes");
    const auto codes64 = ref_codes.to_i64();
    const std::vector<int32_t> codes(codes64.begin(), codes64.end());
    const int64_t frames = ref_codes.shape[0];
    const int n_cb = model->predictor().n_codebooks();
    const int64_t V = model->config().talker.vocab_size, cp_vocab = model->predictor().vocab_size();
    const int eos = model->config().talker.codec_eos_id;
    ASSERT_EQ(ref_codes.shape[1], n_cb);
    ASSERT_EQ(frames + 1, gp.max_new_tokens) << "the official run stopped at EOS";

    // (a) Our logits along the official path.
    const ForcedRun run = run_forced(*model, session.exec(), p, codes, frames);
    const auto ref_talker = golden(c.variant, g + "talker_step_logits").to_f32();
    const auto ref_cp = golden(c.variant, g + "cp_logits").to_f32();
    expect_close(run.talker_logits, ref_talker, "talker step logits");
    const int64_t ref_cp_frames = int64_t(ref_cp.size()) / ((n_cb - 1) * cp_vocab);
    expect_close(
        std::vector<float>(run.cp_logits.begin(), run.cp_logits.begin() + int64_t(ref_cp.size())),
        ref_cp, "code predictor logits");

    // (b) The official tokens are ones our sampler could have drawn.
    expect_talker_tokens_allowed(ref_talker, codes, frames, n_cb, V, eos, gp, "official");
    expect_talker_tokens_allowed(run.talker_logits, codes, frames, n_cb, V, eos, gp, "our");
    expect_predictor_codes_allowed(ref_cp, codes, ref_cp_frames, n_cb, cp_vocab, gp, "official");
    expect_predictor_codes_allowed(run.cp_logits, codes, frames, n_cb, cp_vocab, gp, "our");
}

class SampledGolden : public ::testing::TestWithParam<std::tuple<GoldenCase, backend::KernelSet>> {
};

TEST_P(SampledGolden, OfficialSampledCodesAreOnesWeCouldDraw) {
    run_case(std::get<0>(GetParam()), std::get<1>(GetParam()));
}

INSTANTIATE_TEST_SUITE_P(Cases, SampledGolden,
                         ::testing::Combine(::testing::ValuesIn(sampled_cases()),
                                            ::testing::Values(backend::KernelSet::fast,
                                                              backend::KernelSet::reference)),
                         kernel_case_name);

TEST(SampledGoldenData, EverySampledRunIsChecked) {
    const std::string suffix = "__codes.npy";
    std::vector<std::string> found, listed;
    for (const auto& dir : std::filesystem::directory_iterator(testing::data_dir() + "/golden")) {
        if (!dir.is_directory()) continue;
        for (const auto& f : std::filesystem::directory_iterator(dir.path())) {
            const std::string name = f.path().filename().string();
            if (name.find("__sampled__codes.npy") != std::string::npos)
                found.push_back(dir.path().filename().string() + "/" +
                                name.substr(0, name.size() - suffix.size()));
        }
    }
    for (const auto& c : sampled_cases()) listed.push_back(c.variant + "/" + c.tag);
    std::sort(found.begin(), found.end());
    std::sort(listed.begin(), listed.end());
    EXPECT_EQ(found, listed);
}

}  // namespace
}  // namespace qwen3tts
