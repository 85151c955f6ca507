// The talker side against the official implementation's outputs (tests/data/golden): prompt
// ids, prefill embeddings, trailing text, prefill logits and hidden state, every talker step's
// raw logits, the code predictor's raw logits and the greedy codes, for every generation case
// of the tiny checkpoints (both kernel sets) and of the real-size 0.6B checkpoint (fast
// kernels; generated on demand by the real_checkpoint fixture).
#include <gtest/gtest.h>

#include "golden/golden_cases.hpp"
#include "runtime/session.hpp"

namespace qwen3tts {
namespace {

using namespace golden_cases;
using testing::compare;
using testing::golden;

std::vector<int32_t> as_i32(const NpyArray& a) {
    const auto v = a.to_i64();
    return std::vector<int32_t>(v.begin(), v.end());
}

void expect_close(const std::vector<float>& actual, const NpyArray& ref, const std::string& what,
                  double rel_tol = 1e-4) {
    const auto expected = ref.to_f32();
    ASSERT_EQ(actual.size(), expected.size()) << what << ": size differs";
    const auto d = compare(actual, expected);
    EXPECT_LE(d.max_abs, rel_tol * d.max_ref) << what << ": max |diff| " << d.max_abs << " at "
                                              << d.argmax << ", max |ref| " << d.max_ref;
}

void run_case(const GoldenCase& c, backend::KernelSet kernels) {
    const auto model = load_model(c.variant);
    Session session(model, SessionOptions{2, kernels});
    const std::string g = c.tag + "__";
    const bool clone = model->config().type == ModelType::base;
    const VoiceClonePrompt voice = clone ? golden_voice(c) : VoiceClonePrompt{};
    const Prompt p = session.build_prompt(request(c, clone ? &voice : nullptr));

    // Token ids.
    EXPECT_EQ(p.input_ids, as_i32(golden(c.variant, g + "input_ids"))) << "input ids";
    if (!c.instruct.empty()) {
        EXPECT_EQ(p.instruct_ids, as_i32(golden(c.variant, g + "instruct_ids"))) << "instruct ids";
    }

    // Prefill embeddings, trailing text, tts_pad.
    expect_close(p.embeds, golden(c.variant, g + "prefill_embeds"), "prefill embeds");
    expect_close(p.tts_pad, golden(c.variant, g + "tts_pad_embed"), "tts_pad embed");
    expect_close(p.n_trailing ? p.trailing : p.tts_pad,
                 golden(c.variant, g + "trailing_text_hidden"), "trailing text hidden");

    // Prefill logits at every position and the last hidden state.
    const int64_t H = p.hidden;
    {
        const auto [hidden, logits] = run_prefill(*model, session.exec(), p);
        expect_close(logits, golden(c.variant, g + "prefill_logits"), "prefill logits");
        expect_close(std::vector<float>(hidden.end() - H, hidden.end()),
                     golden(c.variant, g + "prefill_last_hidden"), "prefill last hidden");
    }

    // Greedy generation with the official frame budget; raw logits along the way.
    const auto ref_codes = golden(c.variant, g + "codes");
    GenerationParams params = GenerationParams::defaults(model->config().generation);
    params.talker.do_sample = params.predictor.do_sample = false;
    params.max_new_tokens = int(ref_codes.shape[0]) + 1;
    std::vector<float> step_logits, cp_logits;
    GenerationHooks hooks;
    hooks.talker_logits = [&](int64_t, const float* l, int64_t v) {
        step_logits.insert(step_logits.end(), l, l + v);
    };
    hooks.predictor_logits = [&](int64_t frame, int, const float* l, int64_t v) {
        if (frame < 2) cp_logits.insert(cp_logits.end(), l, l + v);
    };
    const auto codes = session.generate(p, params, hooks);
    expect_close(step_logits, golden(c.variant, g + "talker_step_logits"), "talker step logits");
    expect_close(cp_logits, golden(c.variant, g + "cp_logits"), "code predictor logits");
    EXPECT_EQ(codes, as_i32(ref_codes)) << "greedy codes";
}

class TinyGolden : public ::testing::TestWithParam<std::tuple<GoldenCase, backend::KernelSet>> {};

TEST_P(TinyGolden, MatchesOfficial) {
    run_case(std::get<0>(GetParam()), std::get<1>(GetParam()));
}

INSTANTIATE_TEST_SUITE_P(Cases, TinyGolden,
                         ::testing::Combine(::testing::ValuesIn(tiny_cases()),
                                            ::testing::Values(backend::KernelSet::fast,
                                                              backend::KernelSet::reference)),
                         kernel_case_name);

class RealGolden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(RealGolden, MatchesOfficial) {
    run_case(GetParam(), backend::KernelSet::fast);
}

INSTANTIATE_TEST_SUITE_P(Cases, RealGolden, ::testing::ValuesIn(real_cases()), tag_name);

}  // namespace
}  // namespace qwen3tts
