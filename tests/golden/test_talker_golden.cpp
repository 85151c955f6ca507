// The talker side against the official implementation's outputs (tests/data/golden): prompt
// ids, prefill embeddings, trailing text, prefill logits and hidden state, every talker step's
// raw logits, the code predictor's raw logits and the greedy codes, for every generation case
// of the tiny checkpoints (both kernel sets) and of the real-size 0.6B checkpoint (fast
// kernels; generated on demand by the real_checkpoint fixture).
#include <gtest/gtest.h>

#include <sys/stat.h>

#include "model/tts_model.hpp"
#include "runtime/session.hpp"
#include "support/test_support.hpp"

namespace qwen3tts {
namespace {

using testing::compare;
using testing::golden;

struct GoldenCase {
    std::string variant;  // golden folder
    std::string tag;
    std::string text, language, speaker, instruct, ref_text;
    TextLayout layout;
    bool xvector_only = false;
};

const std::string kHello = "Hello world, this is a test.";
const std::string kNihao = "你好，欢迎使用语音合成。";
const std::string kWarm = "A warm, low-pitched male voice, speaking slowly and calmly.";
const std::string kFox = "The quick brown fox jumps over the lazy dog.";

std::vector<GoldenCase> tiny_cases() {
    const auto NS = TextLayout::non_streaming, ST = TextLayout::streaming;
    return {
        {"tiny-custom_voice", "cv_en_ryan", kHello, "English", "Ryan", "", "", NS},
        {"tiny-custom_voice", "cv_zh_vivian", kNihao, "Chinese", "Vivian", "", "", NS},
        {"tiny-custom_voice", "cv_zh_dylan_dialect", kNihao, "Chinese", "Dylan", "", "", NS},
        {"tiny-custom_voice", "cv_auto_mixed_serena", "Qwen3 可以说 English 和中文。", "Auto",
         "Serena", "", "", NS},
        {"tiny-custom_voice", "cv_en_ryan_instruct", kHello, "English", "Ryan",
         "Speak very happily.", "", NS},
        {"tiny-custom_voice", "cv_en_ryan_streamtext", kHello, "English", "Ryan", "", "", ST},
        {"tiny-voice_design", "vd_en", kHello, "English", "", kWarm, "", NS},
        {"tiny-voice_design", "vd_auto_zh", kNihao, "Auto", "", "用温柔的女声朗读。", "", NS},
        {"tiny-voice_design", "vd_en_streamtext", kHello, "English", "", kWarm, "", ST},
        {"tiny-base", "vc_xvec_en", kHello, "English", "", "", "", ST, true},
        {"tiny-base", "vc_icl_en", kHello, "English", "", "", kFox, ST},
        {"tiny-base", "vc_icl_en_nonstream", kHello, "English", "", "", kFox, NS},
        {"tiny-base", "vc_xvec_auto_zh", kNihao, "Auto", "", "", "", ST, true},
    };
}

std::vector<GoldenCase> real_cases() {
    const auto NS = TextLayout::non_streaming, ST = TextLayout::streaming;
    return {
        {"real-0.6b-custom_voice", "cv_en_ryan", kHello, "English", "Ryan", "", "", NS},
        {"real-0.6b-custom_voice", "cv_zh_dylan_dialect", kNihao, "Chinese", "Dylan", "", "", NS},
        {"real-0.6b-custom_voice", "cv_en_ryan_streamtext", kHello, "English", "Ryan", "", "", ST},
    };
}

std::vector<int32_t> as_i32(const NpyArray& a) {
    const auto v = a.to_i64();
    return std::vector<int32_t>(v.begin(), v.end());
}

void expect_close(const std::vector<float>& actual, const NpyArray& ref, const std::string& what,
                  double rel_tol = 1e-4) {
    const auto expected = ref.to_f32();
    ASSERT_EQ(actual.size(), expected.size()) << what << ": size differs";
    const auto d = compare(actual, expected);
    EXPECT_LE(d.max_abs, rel_tol * d.max_ref)
        << what << ": max |diff| " << d.max_abs << " at " << d.argmax << ", max |ref| "
        << d.max_ref;
}

std::string checkpoint_dir(const std::string& variant) {
    if (variant.rfind("tiny-", 0) == 0) {
        return testing::model_dir(variant);
    }
    return testing::generated_dir() + "/" + variant;
}

void run_case(const GoldenCase& c, backend::KernelSet kernels) {
    const std::string dir = checkpoint_dir(c.variant);
    struct stat st;
    ASSERT_EQ(::stat((dir + "/model.safetensors").c_str(), &st), 0)
        << dir << " is missing: the real_checkpoint fixture generates it";
    static std::map<std::string, std::shared_ptr<const TtsModel>> loaded;
    auto& model = loaded[dir];
    if (!model) model = TtsModel::load(dir);
    Session session(model, SessionOptions{2, kernels});
    const std::string g = c.tag + "__";

    VoiceClonePrompt voice;
    PromptRequest req;
    req.text = c.text;
    req.language = c.language;
    req.speaker = c.speaker;
    req.instruct = c.instruct;
    req.layout = c.layout;
    if (c.variant == "tiny-base") {
        voice.x_vector = golden(c.variant, g + "ref_spk_embedding").to_f32();
        if (!c.xvector_only) {
            const auto rc = golden(c.variant, g + "ref_code").to_i64();
            voice.ref_codes.assign(rc.begin(), rc.end());
            voice.ref_text = c.ref_text;
        }
        req.voice = &voice;
    }
    const Prompt p = session.build_prompt(req);

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
    const Talker& talker = model->talker();
    const int64_t H = p.hidden, L = p.length, V = model->config().talker.vocab_size;
    {
        KvCache cache = talker.stack().make_cache(L);
        DecoderScratch scratch;
        scratch.reserve(talker.stack().shape(), L);
        std::vector<float> x(p.embeds), hidden(size_t(L * H)), logits(size_t(L * V));
        talker.stack().forward(session.exec(), x.data(), L, cache, scratch, hidden.data());
        talker.logits(session.exec(), hidden.data(), L, logits.data());
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

void PrintTo(const GoldenCase& c, std::ostream* os) { *os << c.variant << "/" << c.tag; }

class TinyGolden : public ::testing::TestWithParam<std::tuple<GoldenCase, backend::KernelSet>> {};

TEST_P(TinyGolden, MatchesOfficial) {
    run_case(std::get<0>(GetParam()), std::get<1>(GetParam()));
}

std::string case_name(const ::testing::TestParamInfo<TinyGolden::ParamType>& info) {
    std::string v = std::get<0>(info.param).variant + "_" + std::get<0>(info.param).tag;
    for (auto& ch : v)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    return v + (std::get<1>(info.param) == backend::KernelSet::fast ? "_fast" : "_reference");
}

INSTANTIATE_TEST_SUITE_P(Cases, TinyGolden,
                         ::testing::Combine(::testing::ValuesIn(tiny_cases()),
                                            ::testing::Values(backend::KernelSet::fast,
                                                              backend::KernelSet::reference)),
                         case_name);

class RealGolden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(RealGolden, MatchesOfficial) { run_case(GetParam(), backend::KernelSet::fast); }

INSTANTIATE_TEST_SUITE_P(Cases, RealGolden, ::testing::ValuesIn(real_cases()),
                         [](const ::testing::TestParamInfo<GoldenCase>& param) {
                             return param.param.tag;
                         });

}  // namespace
}  // namespace qwen3tts
