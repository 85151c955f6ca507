// Prompt reuse (runtime/request_memory.hpp): a request whose prompt begins like the previous
// one's (the same voice, speaker, instruction and language, another text) runs only the rest
// of its prompt, and gets what it gets alone: for every golden case, after a request with the
// same voice and another text, the official greedy codes, and every talker logit bit for bit
// equal to a run without reuse; the same after a request in the same voice and then one in
// another (the voice then comes from the copies of voices, runtime/voice_prefixes.hpp). How
// many positions are reused is checked against the prompt layout of spec talker.md §4.2-4.4
// (what comes before the first token of the text).
#include <gtest/gtest.h>

#include "golden/golden_cases.hpp"
#include "runtime/session.hpp"

namespace qwen3tts {
namespace {

using namespace golden_cases;
using testing::golden;

struct Run {
    std::vector<int32_t> codes;
    std::vector<float> talker_logits;
    GenerationStats stats;
};

Run greedy(Session& session, const Prompt& p, int max_new_tokens) {
    GenerationParams params = GenerationParams::defaults(session.model().config().generation);
    params.talker.do_sample = params.predictor.do_sample = false;
    params.max_new_tokens = max_new_tokens;
    Run r;
    GenerationHooks hooks;
    hooks.talker_logits = [&](int64_t, const float* l, int64_t v) {
        r.talker_logits.insert(r.talker_logits.end(), l, l + v);
    };
    r.codes = session.generate(p, params, hooks, &r.stats);
    return r;
}

// Positions before the text's first token (spec talker.md §4.2): the instruction, the three
// role tokens, the codec track but its last (bos) position; in-context mode (§4.4) lays the
// reference transcript's tokens next, under codec bos and the reference frames.
int64_t positions_before_text(const TtsModel& model, const GoldenCase& c, const Prompt& p) {
    const bool auto_language = c.language == "Auto" && c.speaker != "Dylan";
    const bool speaker_slot = !c.speaker.empty() || model.config().type == ModelType::base;
    const int64_t K = (auto_language ? 3 : 4) + (speaker_slot ? 1 : 0) + 2;
    int64_t n = int64_t(p.instruct_ids.size()) + 3 + K - 1;
    if (!c.ref_text.empty() && !c.xvector_only)
        n += int64_t(model.tokenizer().encode(c.ref_text).size());
    return n;
}

void run_case(const GoldenCase& c, backend::KernelSet kernels) {
    const auto model = load_model(c.variant);
    const bool clone = model->config().type == ModelType::base;
    const VoiceClonePrompt voice = clone ? golden_voice(c) : VoiceClonePrompt{};
    PromptRequest req = request(c, clone ? &voice : nullptr);
    const NpyArray ref_array = golden(c.variant, c.tag + "__codes");
    const auto ref = ref_array.to_i64();
    const int max_new_tokens = int(ref_array.shape[0]) + 1;

    SessionOptions cold_options{2, kernels};
    cold_options.reuse_prompts = false;
    Session cold(model, cold_options);
    const Prompt p = cold.build_prompt(req);
    EXPECT_EQ(p.voice_positions, positions_before_text(*model, c, p));
    const Run alone = greedy(cold, p, max_new_tokens);
    EXPECT_EQ(alone.stats.reused_positions, 0);

    Session session(model, SessionOptions{2, kernels});
    req.text = "Another sentence comes first.";  // its first token differs from every case's
    greedy(session, session.build_prompt(req), 4);
    const Run reused = greedy(session, p, max_new_tokens);

    EXPECT_EQ(reused.stats.reused_positions, positions_before_text(*model, c, p));
    EXPECT_EQ(reused.codes, std::vector<int32_t>(ref.begin(), ref.end())) << "greedy codes";
    EXPECT_EQ(reused.codes, alone.codes);
    EXPECT_TRUE(reused.talker_logits == alone.talker_logits) << "talker logits differ";

    // The same prompt again: all but its last position are reused.
    const Run again = greedy(session, p, max_new_tokens);
    EXPECT_EQ(again.stats.reused_positions, p.length - 1);
    EXPECT_EQ(again.codes, alone.codes);
    EXPECT_TRUE(again.talker_logits == alone.talker_logits) << "talker logits differ";

    // In between, a request in another voice (another language: its prompt parts from this
    // one's at the codec control ids) takes the one kept cache.
    Session turns(model, SessionOptions{2, kernels});
    greedy(turns, turns.build_prompt(req), 2);  // this voice, another text
    PromptRequest other = req;
    other.language = c.language == "English" ? "Chinese" : "English";
    const Run between = greedy(turns, turns.build_prompt(other), 2);
    EXPECT_LT(between.stats.reused_positions, positions_before_text(*model, c, p));
    const Run back = greedy(turns, p, max_new_tokens);
    EXPECT_EQ(back.stats.reused_positions, positions_before_text(*model, c, p));
    EXPECT_EQ(back.codes, alone.codes);
    EXPECT_TRUE(back.talker_logits == alone.talker_logits) << "talker logits differ";
}

class TinyPromptReuse
    : public ::testing::TestWithParam<std::tuple<GoldenCase, backend::KernelSet>> {};

TEST_P(TinyPromptReuse, GivesTheCodesOfARunAlone) {
    run_case(std::get<0>(GetParam()), std::get<1>(GetParam()));
}

INSTANTIATE_TEST_SUITE_P(Cases, TinyPromptReuse,
                         ::testing::Combine(::testing::ValuesIn(tiny_cases()),
                                            ::testing::Values(backend::KernelSet::fast,
                                                              backend::KernelSet::reference)),
                         kernel_case_name);

class RealPromptReuse : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(RealPromptReuse, GivesTheCodesOfARunAlone) {
    run_case(GetParam(), backend::KernelSet::fast);
}

INSTANTIATE_TEST_SUITE_P(Cases, RealPromptReuse, ::testing::ValuesIn(real_cases()), tag_name);

}  // namespace
}  // namespace qwen3tts
