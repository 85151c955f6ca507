// Codec decoder against the official implementation's outputs (tests/data/golden/<variant>):
// one full forward, every stage tap, the official chunked_decode (300/25 and 8/4), with one
// and two threads.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/thread_pool.hpp"
#include "model/codec_decoder.hpp"
#include "support/test_support.hpp"

namespace qwen3tts {
namespace {

std::string codec_dir(const std::string& variant) {
    if (variant.rfind("real-", 0) == 0) return testing::generated_dir() + "/" + variant;
    return testing::model_dir(variant);
}

class CodecDecoderGolden : public ::testing::TestWithParam<std::string> {
  protected:
    void SetUp() override {
        const std::string dir = codec_dir(GetParam());
        namespace fs = std::filesystem;
        if (!fs::exists(fs::path(dir) / "speech_tokenizer" / "model.safetensors") &&
            !fs::exists(fs::path(dir) / "model.safetensors"))
            GTEST_SKIP() << "checkpoint not generated: " << dir
                         << " (scripts/make_checkpoint.py --size real-0.6b ...)";
        decoder_ = CodecDecoder::load(dir);
        codes_ = testing::golden(GetParam(), "codec_rand_codes");
        ASSERT_EQ(codes_.shape.size(), 2u);
        ASSERT_EQ(codes_.shape[1], 16);
        n_frames_ = codes_.shape[0];
        ids_ = codes_.to_i64();
    }

    void expect_wav(const std::vector<float>& wav, const std::string& stem, double tol) {
        const auto ref = testing::golden(GetParam(), stem).to_f32();
        ASSERT_EQ(wav.size(), ref.size()) << stem;
        const auto d = testing::compare(wav, ref);
        EXPECT_LE(d.max_abs, tol) << stem << ": max|diff| " << d.max_abs << " at " << d.argmax
                                  << " (max|ref| " << d.max_ref << ")";
    }

    std::unique_ptr<CodecDecoder> decoder_;
    NpyArray codes_;
    std::vector<int64_t> ids_;
    int64_t n_frames_ = 0;
};

TEST_P(CodecDecoderGolden, ForwardMatchesReference) {
    const auto wav = decoder_->decode(ids_.data(), n_frames_);
    ASSERT_EQ(int64_t(wav.size()), n_frames_ * 1920);
    expect_wav(wav, "codec_decoder_forward_wav", 1e-4);
}

TEST_P(CodecDecoderGolden, ForwardTwoThreadsMatchesReference) {
    ThreadPool pool(2);
    const auto wav = decoder_->decode(ids_.data(), n_frames_, {backend::KernelSet::fast, &pool});
    expect_wav(wav, "codec_decoder_forward_wav", 1e-4);
    const auto one = decoder_->decode(ids_.data(), n_frames_);
    const auto d = testing::compare(wav, one);
    EXPECT_LE(d.max_abs, 1e-6) << "threads change the result";
}

TEST_P(CodecDecoderGolden, EveryStageTapMatches) {
    // Taps arrive channels-last per internal chunk; concatenate rows per name.
    std::map<std::string, std::vector<float>> rows;
    std::map<std::string, int> channels;
    auto stream = decoder_->new_stream({}, 7);  // several internal chunks
    stream->set_tap([&](const char* name, const float* data, int64_t n, int ch) {
        auto& v = rows[name];
        v.insert(v.end(), data, data + n * ch);
        channels[name] = ch;
    });
    stream->decode_frames(ids_.data(), n_frames_);
    const char* const taps[] = {"quantizer", "pre_conv",  "pre_transformer",
                                "upsample0", "upsample1", "decoder0",
                                "decoder1",  "decoder2",  "decoder6"};
    for (const char* tap : taps) {
        SCOPED_TRACE(tap);
        ASSERT_TRUE(rows.count(tap)) << "no tap " << tap;
        const NpyArray ref =
            testing::golden(GetParam(), std::string("codec_decode_tap__dec_") + tap + "_out");
        const auto ref_f = ref.to_f32();
        ASSERT_EQ(ref.shape.size(), 3u);
        const std::vector<float>& got_tm = rows[tap];  // [T, C]
        const int ch = channels[tap];
        ASSERT_EQ(got_tm.size(), ref_f.size());
        // pre_transformer is [1, T, C] (channels-last) in the reference; the others [1, C, T].
        std::vector<float> got(ref_f.size());
        if (std::string(tap) == "pre_transformer") {
            got = got_tm;
        } else {
            ASSERT_EQ(ref.shape[1], ch);
            const int64_t t_len = ref.shape[2];
            for (int64_t t = 0; t < t_len; ++t)
                for (int c = 0; c < ch; ++c)
                    got[size_t(c * t_len + t)] = got_tm[size_t(t * ch + c)];
        }
        const auto d = testing::compare(got, ref_f);
        EXPECT_LE(d.max_abs, 1e-4 * std::max(1.0, d.max_ref))
            << tap << ": max|diff| " << d.max_abs << " max|ref| " << d.max_ref;
    }
}

TEST_P(CodecDecoderGolden, OfficialChunkedDecodeMatches) {
    const auto wav = decoder_->decode_chunked(ids_.data(), n_frames_);  // 300 / 25
    expect_wav(wav, "codec_decode_wav", 1e-4);
    const auto c8 = decoder_->decode_chunked(ids_.data(), n_frames_, 8, 4);
    expect_wav(c8, "codec_chunked_decode_c8_l4_wav", 1e-4);
}

// With the Winograd option (CodecDecoderOptions) the waveform stays within the same bound of
// the official one: one-shot on two threads, and streamed one frame at a time, where every
// packet cuts the last tiles of each conv short.
TEST_P(CodecDecoderGolden, WinogradMatchesReference) {
    const auto winograd = CodecDecoder::load(codec_dir(GetParam()), {/*winograd=*/true});
    ThreadPool pool(2);
    const backend::ExecContext ctx{backend::KernelSet::fast, &pool};
    expect_wav(winograd->decode(ids_.data(), n_frames_, ctx), "codec_decoder_forward_wav", 1e-4);
    auto stream = winograd->new_stream(ctx, 1, 1);
    std::vector<float> streamed;
    for (int64_t f = 0; f < n_frames_; ++f) {
        const auto part = stream->decode_frames(ids_.data() + f * 16, 1);
        streamed.insert(streamed.end(), part.begin(), part.end());
    }
    expect_wav(streamed, "codec_decoder_forward_wav", 1e-4);
}

INSTANTIATE_TEST_SUITE_P(Variants, CodecDecoderGolden,
                         ::testing::Values("tiny-custom_voice", "tiny-voice_design", "tiny-base",
                                           "real-0.6b-custom_voice"),
                         [](const auto& param_info) {
                             std::string s = param_info.param;
                             for (auto& ch : s)
                                 if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
                             return s;
                         });

}  // namespace
}  // namespace qwen3tts
