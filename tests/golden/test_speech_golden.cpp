// Text to waveform end to end against the official pipeline's output (`<case>__wav`, greedy):
// same length and max |diff| ≤ 3e-5, for every generation case, with the default exact
// streaming codec decode, with its packets decoded beside the generation (CodecOverlap::on:
// the very same samples as decoded between frames) and with the official chunked decode. Base
// cases use the reference x-vector and codes of the data (the speaker and codec encoders are
// tested on their own).
#include <gtest/gtest.h>

#include "golden/golden_cases.hpp"
#include "runtime/speech.hpp"

namespace qwen3tts {
namespace {

using namespace golden_cases;

// How the audio is decoded: streaming with the default overlap choice, streaming with every
// packet after the first audio decoded beside the generation, the official chunked decode.
enum class Decode { streaming, streaming_beside, official_chunked };

class SpeechGolden : public ::testing::TestWithParam<std::tuple<GoldenCase, Decode>> {};

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

    const Decode decode = std::get<1>(GetParam());
    std::vector<float> wav;
    const SpeechStats st = synthesize_speech(
        session, *codec, p, params, clone ? &voice : nullptr,
        decode == Decode::official_chunked ? CodecDecodeMode::official_chunked
                                           : CodecDecodeMode::streaming,
        [&](const float* s, size_t n) {
            wav.insert(wav.end(), s, s + n);
            return true;
        },
        decode == Decode::streaming_beside ? CodecOverlap::on : CodecOverlap::adaptive);
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
                                            ::testing::Values(Decode::streaming,
                                                              Decode::streaming_beside,
                                                              Decode::official_chunked)),
                         [](const ::testing::TestParamInfo<SpeechGolden::ParamType>& param) {
                             const Decode d = std::get<1>(param.param);
                             return case_name(std::get<0>(param.param)) +
                                    (d == Decode::streaming          ? "_streaming"
                                     : d == Decode::streaming_beside ? "_streaming_beside"
                                                                     : "_official_chunked");
                         });

// A callback that stops the request while a packet is decoding beside the generation: it is
// called no more after it returned false, and the samples reported are those it received.
TEST(SpeechBeside, StopsAtTheCallbacksWord) {
    const GoldenCase c = tiny_cases()[0];
    const auto model = load_model(c.variant);
    const auto codec = CodecDecoder::load(model->dir() + "/speech_tokenizer");
    Session session(model, SessionOptions{2, backend::KernelSet::fast});
    const Prompt p = session.build_prompt(request(c, nullptr));
    GenerationParams params = GenerationParams::defaults(model->config().generation);
    params.talker.do_sample = params.predictor.do_sample = false;
    params.min_new_tokens = params.max_new_tokens = 40;  // no end of speech: 39 frames
    int calls = 0;
    size_t received = 0;
    const SpeechStats st = synthesize_speech(
        session, *codec, p, params, nullptr, CodecDecodeMode::streaming,
        [&](const float*, size_t n) {
            ++calls;
            received += n;
            return calls < 3;  // the first frame, the first packet, a second packet
        },
        CodecOverlap::on);
    EXPECT_EQ(calls, 3);
    EXPECT_EQ(st.samples, int64_t(received));
    EXPECT_EQ(received, size_t((1 + 2 * FrameAudio::kPacketFrames) * codec->samples_per_frame()));
    // The generation stopped within a packet or two of the word, not at frame 39.
    EXPECT_LT(st.generation.frames, 1 + 4 * FrameAudio::kPacketFrames);
    // And the session is on all its threads again.
    EXPECT_EQ(session.exec().pool, session.pool());
}

}  // namespace
}  // namespace qwen3tts
