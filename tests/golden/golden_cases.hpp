// The generation cases of the official reference data (tests/data/golden/*/index.json
// "cases"), shared by the golden tests, and how to load their checkpoints and voices.
#pragma once

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "model/prompt.hpp"
#include "model/tts_model.hpp"
#include "support/test_support.hpp"

namespace qwen3tts::golden_cases {

struct GoldenCase {
    std::string variant;  // golden folder
    std::string tag;
    std::string text, language, speaker, instruct, ref_text;
    TextLayout layout;
    bool xvector_only = false;
};

inline const std::string kHello = "Hello world, this is a test.";
inline const std::string kNihao = "你好，欢迎使用语音合成。";
inline const std::string kWarm = "A warm, low-pitched male voice, speaking slowly and calmly.";
inline const std::string kFox = "The quick brown fox jumps over the lazy dog.";

inline std::vector<GoldenCase> tiny_cases() {
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

inline std::vector<GoldenCase> real_cases() {
    const auto NS = TextLayout::non_streaming, ST = TextLayout::streaming;
    return {
        {"real-0.6b-custom_voice", "cv_en_ryan", kHello, "English", "Ryan", "", "", NS},
        {"real-0.6b-custom_voice", "cv_zh_dylan_dialect", kNihao, "Chinese", "Dylan", "", "", NS},
        {"real-0.6b-custom_voice", "cv_en_ryan_streamtext", kHello, "English", "Ryan", "", "", ST},
    };
}

// The one sampled run per tiny variant (tag "<greedy tag>__sampled": the same request as
// that greedy case, with the generation_config defaults after torch.manual_seed(1234)).
inline std::vector<GoldenCase> sampled_cases() {
    const auto NS = TextLayout::non_streaming, ST = TextLayout::streaming;
    return {
        {"tiny-custom_voice", "cv_en_ryan__sampled", kHello, "English", "Ryan", "", "", NS},
        {"tiny-voice_design", "vd_en__sampled", kHello, "English", "", kWarm, "", NS},
        {"tiny-base", "vc_icl_en__sampled", kHello, "English", "", "", kFox, ST},
    };
}

inline std::string checkpoint_dir(const std::string& variant) {
    if (variant.rfind("tiny-", 0) == 0) {
        return testing::model_dir(variant);
    }
    return testing::generated_dir() + "/" + variant;
}

// Loads (once per process) the checkpoint of a case's variant. The reference was made by the
// official code loading a local directory, the case where transformers 4.57.3 swaps in the
// fixed-Mistral regex, so that one is pinned here rather than the default (qwen2);
// test_tokenizer checks that every golden id sequence is the same under both.
inline std::shared_ptr<const TtsModel> load_model(const std::string& variant) {
    static std::map<std::string, std::shared_ptr<const TtsModel>> loaded;
    const std::string dir = checkpoint_dir(variant);
    auto& model = loaded[dir];
    if (!model) model = TtsModel::load(dir, PretokenizerRegex::mistral_fixed);
    return model;
}

// The voice of a Base case, from the reference data (x-vector, and codes for in-context).
inline VoiceClonePrompt golden_voice(const GoldenCase& c) {
    VoiceClonePrompt voice;
    voice.x_vector = testing::golden(c.variant, c.tag + "__ref_spk_embedding").to_f32();
    if (!c.xvector_only) {
        const auto rc = testing::golden(c.variant, c.tag + "__ref_code").to_i64();
        voice.ref_codes.assign(rc.begin(), rc.end());
        voice.ref_text = c.ref_text;
    }
    return voice;
}

inline PromptRequest request(const GoldenCase& c, const VoiceClonePrompt* voice) {
    PromptRequest req;
    req.text = c.text;
    req.language = c.language;
    req.speaker = c.speaker;
    req.instruct = c.instruct;
    req.layout = c.layout;
    req.voice = voice;
    return req;
}

// The talker over a whole prompt at once (the prefill): final hidden states [L, H] and
// codec_head logits [L, vocab] at every position.
struct Prefill {
    std::vector<float> hidden, logits;
};
inline Prefill run_prefill(const TtsModel& model, const backend::ExecContext& ctx,
                           const Prompt& p) {
    const Talker& talker = model.talker();
    const int64_t L = p.length;
    KvCache cache = talker.stack().make_cache(L);
    DecoderScratch scratch;
    scratch.reserve(talker.stack().shape(), L);
    Prefill out;
    out.hidden.resize(size_t(L * p.hidden));
    out.logits.resize(size_t(L * model.config().talker.vocab_size));
    std::vector<float> x(p.embeds);
    talker.stack().forward(ctx, x.data(), L, cache, scratch, out.hidden.data());
    talker.logits(ctx, out.hidden.data(), L, out.logits.data());
    return out;
}

inline void PrintTo(const GoldenCase& c, std::ostream* os) {
    *os << c.variant << "/" << c.tag;
}

inline std::string case_name(const GoldenCase& c) {
    std::string v = c.variant + "_" + c.tag;
    for (auto& ch : v)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    return v;
}

// Test names of (case, kernel set) parameters: case_name + "_fast" or "_reference".
inline std::string kernel_case_name(
    const ::testing::TestParamInfo<std::tuple<GoldenCase, backend::KernelSet>>& info) {
    return case_name(std::get<0>(info.param)) +
           (std::get<1>(info.param) == backend::KernelSet::fast ? "_fast" : "_reference");
}

// Test names of the real-size cases (one variant): their tags.
inline std::string tag_name(const ::testing::TestParamInfo<GoldenCase>& info) {
    return info.param.tag;
}

}  // namespace qwen3tts::golden_cases
