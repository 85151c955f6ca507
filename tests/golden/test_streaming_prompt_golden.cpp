// StreamingPrompt on every golden case (tiny checkpoints and the real-size 0.6B, whose bf16
// text projection has the released shapes): for random cuttings of the case's text, the
// prefill and the trailing rows equal build_prompt's bit for bit, and the official
// implementation's prefill embeddings and trailing text within the golden tolerance.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "golden/golden_cases.hpp"
#include "model/streaming_prompt.hpp"

namespace qwen3tts {
namespace {

using namespace golden_cases;
using testing::compare;
using testing::golden;

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
    // memcmp of two empty vectors would get null pointers (undefined behaviour).
    return a.size() == b.size() &&
           (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}

void expect_close(const std::vector<float>& actual, const NpyArray& ref, const std::string& what) {
    const auto expected = ref.to_f32();
    ASSERT_EQ(actual.size(), expected.size()) << what;
    const auto d = compare(actual, expected);
    EXPECT_LE(d.max_abs, 1e-4 * d.max_ref) << what << ": max |diff| " << d.max_abs;
}

void run_case(const GoldenCase& c) {
    const auto model = load_model(c.variant);
    const backend::ExecContext ctx{};
    const bool clone = model->config().type == ModelType::base;
    const VoiceClonePrompt voice = clone ? golden_voice(c) : VoiceClonePrompt{};
    const PromptRequest whole = request(c, clone ? &voice : nullptr);
    const Prompt ref = build_prompt(ctx, model->config(), model->tokenizer(), model->talker(),
                                    model->predictor(), whole);
    const size_t H = size_t(ref.hidden);
    std::mt19937 rng(5);
    std::uniform_int_distribution<size_t> len(1, 6);
    for (int v = 0; v < 3; ++v) {
        PromptRequest req = whole;
        req.text.clear();
        StreamingPrompt sp(ctx, model->config(), model->tokenizer(), model->talker(),
                           model->predictor(), req);
        Prompt prefill;
        bool taken = false;
        std::vector<float> rows, row(H);
        const auto take = [&] {
            if (!taken && sp.ready_for_prefill()) {
                prefill = sp.take_prefill();
                taken = true;
            }
            for (int64_t n = taken ? sp.trailing_available() : 0; n > 0; --n) {
                ASSERT_TRUE(sp.next_trailing(row.data()));
                rows.insert(rows.end(), row.begin(), row.end());
            }
        };
        for (size_t i = 0; i < c.text.size();) {
            const size_t n = std::min(len(rng), c.text.size() - i);
            sp.push_text(c.text.substr(i, n));
            i += n;
            take();
        }
        sp.finish_text();
        take();
        ASSERT_TRUE(taken);
        EXPECT_TRUE(same_bits(prefill.embeds, ref.embeds)) << "prefill, cutting " << v;
        EXPECT_TRUE(same_bits(rows, ref.trailing)) << "trailing, cutting " << v;
        EXPECT_EQ(sp.template_ids(), ref.input_ids);
        expect_close(prefill.embeds, golden(c.variant, c.tag + "__prefill_embeds"), "prefill");
        expect_close(rows.empty() ? prefill.tts_pad : rows,
                     golden(c.variant, c.tag + "__trailing_text_hidden"), "trailing text");
    }
}

class StreamingPromptGolden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(StreamingPromptGolden, EqualsBuildPromptAndOfficial) {
    run_case(GetParam());
}

std::vector<GoldenCase> all_cases() {
    auto cases = tiny_cases();
    for (const auto& c : real_cases()) cases.push_back(c);
    return cases;
}

INSTANTIATE_TEST_SUITE_P(Cases, StreamingPromptGolden, ::testing::ValuesIn(all_cases()),
                         [](const auto& param_info) { return case_name(param_info.param); });

}  // namespace
}  // namespace qwen3tts
