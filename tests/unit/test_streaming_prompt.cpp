// StreamingPrompt against build_prompt of the whole text in the same layout: for random
// cuttings of several texts, the prefill and the trailing rows (taken at random moments, as a
// decode loop would) equal build_prompt's bit for bit, for CustomVoice, VoiceDesign and Base
// (x-vector and in-context voices, long and short references) on the tiny checkpoints, with
// both kernel sets; the prefill is ready as early as the layout allows, and the errors are
// build_prompt's.
#include <gtest/gtest.h>

#include <cstring>
#include <optional>
#include <random>

#include "core/error.hpp"
#include "golden/golden_cases.hpp"
#include "model/streaming_prompt.hpp"

namespace qwen3tts {
namespace {

using namespace golden_cases;

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
    // memcmp of two empty vectors would get null pointers (undefined behaviour).
    return a.size() == b.size() &&
           (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}

std::vector<std::string> random_chunks(const std::string& text, std::mt19937& rng) {
    std::vector<std::string> out;
    std::uniform_int_distribution<size_t> len(0, 7);
    for (size_t i = 0; i < text.size();) {
        const size_t n = std::min(len(rng), text.size() - i);
        out.push_back(text.substr(i, n));
        i += n;
    }
    return out;
}

struct Streamed {
    Prompt prefill;
    std::vector<float> trailing;        // rows before the first tts_pad
    std::vector<int32_t> template_ids;  // after finish_text()
};

// Streams `chunks` (the first one given to the constructor), taking the prefill as soon as it
// is ready and a random number of the available trailing rows after each push.
Streamed stream(const TtsModel& m, const backend::ExecContext& ctx, PromptRequest req,
                const std::vector<std::string>& chunks, std::mt19937& rng) {
    const int64_t H = m.talker().hidden_size();
    req.text = chunks.empty() ? std::string() : chunks[0];
    StreamingPrompt sp(ctx, m.config(), m.tokenizer(), m.talker(), m.predictor(), req);
    std::optional<Prompt> prefill;
    std::vector<float> rows;
    std::vector<float> row(static_cast<size_t>(H));
    const auto take = [&](bool all) {
        if (!prefill && sp.ready_for_prefill()) prefill = sp.take_prefill();
        if (!prefill) return;
        const int64_t available = sp.trailing_available();
        const int64_t n =
            all ? available : std::uniform_int_distribution<int64_t>(0, available)(rng);
        for (int64_t i = 0; i < n; ++i) {
            EXPECT_TRUE(sp.next_trailing(row.data()));
            rows.insert(rows.end(), row.begin(), row.end());
        }
        // Past the committed text the stream waits rather than padding.
        if (all && !sp.text_finished()) {
            EXPECT_FALSE(sp.next_trailing(row.data()));
        }
    };
    for (size_t i = 1; i < chunks.size(); ++i) {
        sp.push_text(chunks[i]);
        take(std::uniform_int_distribution<int>(0, 3)(rng) == 0);
    }
    sp.finish_text();
    take(true);
    EXPECT_TRUE(prefill.has_value());
    EXPECT_EQ(sp.trailing_available(), 0);
    // Then tts_pad for ever.
    for (int i = 0; i < 2; ++i) {
        EXPECT_TRUE(sp.next_trailing(row.data()));
        EXPECT_TRUE(same_bits(row, prefill->tts_pad));
    }
    // The prefill's ids are those committed when it was taken.
    const auto& ids = sp.template_ids();
    EXPECT_TRUE(std::equal(prefill->input_ids.begin(), prefill->input_ids.end(), ids.begin()));
    return {std::move(*prefill), std::move(rows), ids};
}

void expect_same_as_build_prompt(const TtsModel& m, const backend::ExecContext& ctx,
                                 const PromptRequest& req, int n_cuttings, uint32_t seed) {
    const Prompt ref = build_prompt(ctx, m.config(), m.tokenizer(), m.talker(), m.predictor(), req);
    std::mt19937 rng(seed);
    for (int v = 0; v < n_cuttings; ++v) {
        const auto chunks = random_chunks(req.text, rng);
        const Streamed s = stream(m, ctx, req, chunks, rng);
        const std::string where = "\"" + req.text + "\", cutting " + std::to_string(v);
        EXPECT_EQ(s.prefill.length, ref.length) << where;
        EXPECT_TRUE(same_bits(s.prefill.embeds, ref.embeds)) << "prefill " << where;
        EXPECT_TRUE(same_bits(s.trailing, ref.trailing))
            << "trailing: " << s.trailing.size() / size_t(ref.hidden) << " rows, expected "
            << ref.n_trailing << "; " << where;
        EXPECT_TRUE(same_bits(s.prefill.tts_pad, ref.tts_pad)) << where;
        EXPECT_EQ(s.template_ids, ref.input_ids) << where;
        EXPECT_EQ(s.prefill.instruct_ids, ref.instruct_ids) << where;
        EXPECT_EQ(s.prefill.non_streaming, ref.non_streaming) << where;
        EXPECT_EQ(s.prefill.n_trailing, 0) << where;
        if (::testing::Test::HasFailure()) return;
    }
}

const std::vector<std::string>& texts() {
    static const std::vector<std::string> t = {
        kHello,
        kNihao,
        "\n\nA text that starts with newlines, and has <|im_end|> in it.",
        "  Spaces first. Don't stop: 12,345 words 😀👍🏽 — cafe\u0301 e\u0301t\u00e9.",
        "Qwen3 可以说 English 和中文。Then a longer tail of words, so that the text runs well "
        "past a short reference: one two three four five six seven eight nine ten.",
    };
    return t;
}

class StreamingPromptKernels : public ::testing::TestWithParam<backend::KernelSet> {};

TEST_P(StreamingPromptKernels, CustomVoiceAndVoiceDesignEqualBuildPrompt) {
    const backend::ExecContext ctx{GetParam(), nullptr};
    for (const auto& variant : {"tiny-custom_voice", "tiny-voice_design"}) {
        const auto model = load_model(variant);
        const bool cv = std::string(variant) == "tiny-custom_voice";
        for (TextLayout layout : {TextLayout::streaming, TextLayout::non_streaming}) {
            for (const std::string& text : texts()) {
                PromptRequest req;
                req.text = text;
                req.language = cv ? "English" : "Auto";
                req.speaker = cv ? "Ryan" : "";
                req.instruct = cv ? "" : kWarm;
                req.layout = layout;
                expect_same_as_build_prompt(*model, ctx, req, 8, 11);
            }
        }
    }
}

TEST_P(StreamingPromptKernels, BaseXVectorAndInContextEqualBuildPrompt) {
    const backend::ExecContext ctx{GetParam(), nullptr};
    const auto model = load_model("tiny-base");
    GoldenCase icl_case;
    icl_case.variant = "tiny-base";
    icl_case.tag = "vc_icl_en";
    icl_case.ref_text = kFox;
    const VoiceClonePrompt icl = golden_voice(icl_case);  // 43 frames: Lc = 44
    VoiceClonePrompt xvec = icl;
    xvec.ref_codes.clear();
    xvec.ref_text.clear();
    // A short reference (Lc = 4, fewer than the transcript's tokens) and a middle one.
    VoiceClonePrompt short_ref = icl, middle_ref = icl;
    short_ref.ref_codes.resize(3 * 16);
    middle_ref.ref_codes.resize(16 * 16);
    const VoiceClonePrompt* voices[] = {&xvec, &icl, &short_ref, &middle_ref};
    for (const VoiceClonePrompt* voice : voices) {
        for (TextLayout layout : {TextLayout::streaming, TextLayout::non_streaming}) {
            for (const std::string& text : texts()) {
                PromptRequest req;
                req.text = text;
                req.language = "English";
                req.layout = layout;
                req.voice = voice;
                expect_same_as_build_prompt(*model, ctx, req, 8, 12);
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(streaming_prompt, StreamingPromptKernels,
                         ::testing::Values(backend::KernelSet::fast,
                                           backend::KernelSet::reference));

// The prefill is ready as soon as the layout allows, and not before.
TEST(streaming_prompt, PrefillReadyAsSoonAsTheLayoutAllows) {
    const auto model = load_model("tiny-custom_voice");
    const backend::ExecContext ctx{};
    PromptRequest req;
    req.speaker = "Ryan";
    req.layout = TextLayout::streaming;
    StreamingPrompt sp(ctx, model->config(), model->tokenizer(), model->talker(),
                       model->predictor(), req);
    EXPECT_FALSE(sp.ready_for_prefill());
    sp.push_text("Hello");  // the first word may still go on
    EXPECT_FALSE(sp.ready_for_prefill());
    sp.push_text(" ");
    EXPECT_TRUE(sp.ready_for_prefill());
    const Prompt p = sp.take_prefill();
    EXPECT_EQ(sp.trailing_available(), 0);
    std::vector<float> row(size_t(p.hidden));
    EXPECT_FALSE(sp.next_trailing(row.data()));  // " world" may still go on: wait
    sp.push_text("world.");
    EXPECT_EQ(sp.trailing_available(), 1);

    req.layout = TextLayout::non_streaming;
    StreamingPrompt ns(ctx, model->config(), model->tokenizer(), model->talker(),
                       model->predictor(), req);
    ns.push_text("Hello world, more text.");
    EXPECT_FALSE(ns.ready_for_prefill());
    ns.finish_text();
    EXPECT_TRUE(ns.ready_for_prefill());
}

// In-context: the prefill waits until M + n + 1 > Lc is certain.
TEST(streaming_prompt, InContextPrefillWaitsForTheReferenceFrames) {
    const auto model = load_model("tiny-base");
    const backend::ExecContext ctx{};
    VoiceClonePrompt voice;
    voice.x_vector.assign(size_t(model->talker().hidden_size()), 0.5f);
    voice.ref_codes.assign(6 * 16, 7);  // Lc = 7
    voice.ref_text = "One two.";        // M = 3 tokens: "One", " two", "."
    ASSERT_EQ(model->tokenizer().encode(voice.ref_text).size(), 3u);
    PromptRequest req;
    req.voice = &voice;
    req.layout = TextLayout::streaming;
    StreamingPrompt sp(ctx, model->config(), model->tokenizer(), model->talker(),
                       model->predictor(), req);
    sp.push_text("a b c ");  // 3 text tokens committed ("a", " b", " c"): 3 + 3 + 1 = Lc
    EXPECT_FALSE(sp.ready_for_prefill());
    sp.push_text("d ");  // 4: M + n + 1 = 8 > 7
    EXPECT_TRUE(sp.ready_for_prefill());
}

TEST(streaming_prompt, ErrorsAreBuildPromptErrors) {
    const auto model = load_model("tiny-custom_voice");
    const backend::ExecContext ctx{};
    const auto make = [&](const PromptRequest& r) {
        return StreamingPrompt(ctx, model->config(), model->tokenizer(), model->talker(),
                               model->predictor(), r);
    };
    const auto one_shot = [&](const PromptRequest& r) {
        return testing::error_of([&] {
            build_prompt(ctx, model->config(), model->tokenizer(), model->talker(),
                         model->predictor(), r);
        });
    };
    PromptRequest bad_speaker;
    bad_speaker.text = "Hi.";
    bad_speaker.speaker = "nobody";
    EXPECT_EQ(testing::error_of([&] { make(bad_speaker); }), one_shot(bad_speaker));
    EXPECT_NE(one_shot(bad_speaker), "(no error)");

    PromptRequest blank;
    blank.text = " \n";
    blank.speaker = "Ryan";
    EXPECT_EQ(testing::error_of([&] {
                  auto sp = make(PromptRequest{"", "auto", "Ryan"});
                  sp.push_text(" ");
                  sp.push_text("\n");
                  sp.finish_text();
              }),
              one_shot(blank));
    EXPECT_EQ(one_shot(blank), "the text to speak is empty");

    PromptRequest invalid;
    invalid.text = "ok \xe4\xbd\xa0 then \xe4\xbd";
    invalid.speaker = "Ryan";
    EXPECT_EQ(testing::error_of([&] {
                  auto sp = make(PromptRequest{"ok \xe4", "auto", "Ryan"});
                  sp.push_text("\xbd\xa0 then \xe4");
                  sp.push_text("\xbd");
                  sp.finish_text();
              }),
              one_shot(invalid));
    EXPECT_EQ(one_shot(invalid), "the text to speak: invalid UTF-8 at byte offset 12 (byte 0xe4)");
}

}  // namespace
}  // namespace qwen3tts
