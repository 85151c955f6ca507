// Text to waveform end to end against the official pipeline's output (`<case>__wav`, greedy):
// same length and max |diff| ≤ 3e-5, for every generation case, with the default exact
// streaming codec decode and with the official chunked decode. Base cases use the reference
// x-vector and codes of the data (the speaker and codec encoders are tested on their own).
#include <gtest/gtest.h>

#include "golden/golden_cases.hpp"
#include "runtime/speech.hpp"

namespace qwen3tts {
namespace {

using namespace golden_cases;

class SpeechGolden : public ::testing::TestWithParam<std::tuple<GoldenCase, CodecDecodeMode>> {};

TEST_P(SpeechGolden, WaveformMatchesOfficial) {
    const GoldenCase& c = std::get<0>(GetParam());
    const auto model = load_model(c.variant);
    static std::map<std::string, std::unique_ptr<CodecDecoder>> codecs;
    auto& codec = codecs[model->dir()];
    if (!codec) codec = CodecDecoder::load(model->dir() + "/speech_tokenizer");

    Session session(model, SessionOptions{2, backend::KernelSet::fast});
    const bool clone = model->config().type == ModelType::base;
    const VoiceClonePrompt voice = clone ? golden_voice(c) : VoiceClonePrompt{};
    const Prompt p = session.build_prompt(request(c, clone ? &voice : nullptr));
    const auto ref = testing::golden(c.variant, c.tag + "__wav").to_f32();
    GenerationParams params = GenerationParams::defaults(model->config().generation);
    params.talker.do_sample = params.predictor.do_sample = false;
    params.max_new_tokens = int(ref.size() / 1920) + 1;

    std::vector<float> wav;
    const SpeechStats st =
        synthesize_speech(session, *codec, p, params, clone ? &voice : nullptr,
                          std::get<1>(GetParam()), [&](const float* s, size_t n) {
                              wav.insert(wav.end(), s, s + n);
                              return true;
                          });
    ASSERT_EQ(wav.size(), ref.size());
    EXPECT_EQ(st.samples, int64_t(ref.size()));
    const auto d = testing::compare(wav, ref);
    // Measured: ≤ 3e-6 on the tiny checkpoints, ≤ 8e-6 on the real-size 0.6B (f32 rounding
    // order of the fast kernels; the codec's own golden tests hold 1e-4).
    EXPECT_LE(d.max_abs, 3e-5) << "at sample " << d.argmax;
}

std::vector<GoldenCase> all_cases() {
    auto v = tiny_cases();
    for (const auto& c : real_cases()) v.push_back(c);
    return v;
}

INSTANTIATE_TEST_SUITE_P(Cases, SpeechGolden,
                         ::testing::Combine(::testing::ValuesIn(all_cases()),
                                            ::testing::Values(CodecDecodeMode::streaming,
                                                              CodecDecodeMode::official_chunked)),
                         [](const ::testing::TestParamInfo<SpeechGolden::ParamType>& param) {
                             return case_name(std::get<0>(param.param)) +
                                    (std::get<1>(param.param) == CodecDecodeMode::streaming
                                         ? "_streaming"
                                         : "_official_chunked");
                         });

}  // namespace
}  // namespace qwen3tts
