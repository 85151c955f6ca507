// Streaming codec decode (carried conv contexts, transposed-conv tails, sliding-window KV)
// equals the one-shot decode for any packetisation; state stays bounded; bad input is an Error.
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/thread_pool.hpp"
#include "model/codec_config.hpp"
#include "model/codec_decoder.hpp"
#include "support/test_support.hpp"

namespace qwen3tts {
namespace {

class CodecStreaming : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        decoder_ = CodecDecoder::load(testing::model_dir("tiny-custom_voice")).release();
    }
    static void TearDownTestSuite() {
        delete decoder_;
        decoder_ = nullptr;
    }
    static std::vector<int64_t> random_codes(int64_t n, uint32_t seed) {
        std::mt19937 rng(seed);
        std::uniform_int_distribution<int> d(0, 2047);
        std::vector<int64_t> c(size_t(n) * 16);
        for (auto& v : c) v = d(rng);
        return c;
    }
    static std::vector<float> stream_decode(const std::vector<int64_t>& codes, int packet,
                                            int max_chunk, ThreadPool* pool = nullptr) {
        const int64_t n = int64_t(codes.size()) / 16;
        auto stream = decoder_->new_stream({backend::KernelSet::fast, pool}, max_chunk);
        std::vector<float> out;
        for (int64_t f = 0; f < n; f += packet) {
            const int64_t m = std::min<int64_t>(packet, n - f);
            const auto part = stream->decode_frames(codes.data() + f * 16, m);
            EXPECT_EQ(int64_t(part.size()), m * 1920);
            out.insert(out.end(), part.begin(), part.end());
        }
        EXPECT_EQ(stream->frames_done(), n);
        return out;
    }
    static CodecDecoder* decoder_;
};

CodecDecoder* CodecStreaming::decoder_ = nullptr;

TEST_F(CodecStreaming, PacketsStartAtOneFrameAndGrow) {
    const auto ids = random_codes(20, 5);
    const auto one_shot = decoder_->decode(ids.data(), 20);
    auto stream = decoder_->new_stream({}, 4);
    std::vector<int> sizes;
    std::vector<float> out;
    for (int64_t f = 0; f < 20;) {
        const int64_t m = std::min<int64_t>(stream->next_packet_frames(4), 20 - f);
        sizes.push_back(int(m));
        const auto part = stream->decode_frames(ids.data() + f * 16, m);
        out.insert(out.end(), part.begin(), part.end());
        f += m;
    }
    EXPECT_EQ(sizes, (std::vector<int>{1, 1, 2, 4, 4, 4, 4}));
    ASSERT_EQ(out.size(), one_shot.size());
    EXPECT_LE(testing::compare(out, one_shot).max_abs, 1e-6);
    EXPECT_EQ(stream->next_packet_frames(2), 2);
    stream->reset();
    EXPECT_EQ(stream->next_packet_frames(4), 1);
    try {
        stream->next_packet_frames(0);
        FAIL() << "max_packet 0 accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("max_packet must be > 0, got 0"), std::string::npos)
            << e.what();
    }
}

TEST_F(CodecStreaming, AnyPacketisationEqualsOneShot) {
    const auto ids = testing::golden("tiny-custom_voice", "codec_rand_codes").to_i64();
    const auto one_shot = decoder_->decode(ids.data(), int64_t(ids.size()) / 16);
    for (int packet : {1, 2, 4, 7}) {
        for (int max_chunk : {packet, 3}) {  // 3: calls larger than a step are split inside
            SCOPED_TRACE("packet " + std::to_string(packet) + " max_chunk " +
                         std::to_string(max_chunk));
            const auto streamed = stream_decode(ids, packet, max_chunk);
            const auto d = testing::compare(streamed, one_shot);
            EXPECT_LE(d.max_abs, 1e-5) << "at sample " << d.argmax;
        }
    }
}

TEST_F(CodecStreaming, LongStreamWrapsTheWindowAndStaysBounded) {
    const int64_t n = 300;  // > 4 windows of 72 frames
    const auto codes = random_codes(n, 99);
    const auto one_shot = decoder_->decode(codes.data(), n);
    ASSERT_EQ(int64_t(one_shot.size()), n * 1920);
    for (int packet : {1, 7}) {
        SCOPED_TRACE("packet " + std::to_string(packet));
        const auto streamed = stream_decode(codes, packet, packet);
        const auto d = testing::compare(streamed, one_shot);
        EXPECT_LE(d.max_abs, 1e-5) << "at sample " << d.argmax;
    }
    // State and scratch do not grow with the stream.
    auto stream = decoder_->new_stream({}, 4);
    const size_t state0 = stream->state_bytes(), scratch0 = stream->scratch_bytes();
    std::vector<float> out(4 * 1920);
    for (int64_t f = 0; f + 4 <= n; f += 4)
        stream->decode_frames(codes.data() + f * 16, 4, out.data());
    EXPECT_EQ(stream->state_bytes(), state0);
    EXPECT_EQ(stream->scratch_bytes(), scratch0);
    // After reset() the stream starts over.
    stream->reset();
    EXPECT_EQ(stream->frames_done(), 0);
    const auto again = stream->decode_frames(codes.data(), 4);
    const std::vector<float> first(one_shot.begin(), one_shot.begin() + 4 * 1920);
    EXPECT_LE(testing::compare(again, first).max_abs, 1e-5);
}

TEST_F(CodecStreaming, TwoThreadsEqualOneThread) {
    const auto codes = random_codes(30, 5);
    ThreadPool pool(2);
    const auto a = stream_decode(codes, 4, 4, &pool);
    const auto b = stream_decode(codes, 4, 4, nullptr);
    EXPECT_LE(testing::compare(a, b).max_abs, 1e-6);
}

// Streams decoded together (CodecStream::decode_batch) give exactly what each gives alone:
// different lengths, packet sizes, internal chunk sizes, and a stream joining mid-way.
TEST_F(CodecStreaming, BatchOfStreamsEqualsEachStreamAlone) {
    struct Spec {
        int64_t frames;
        int packet;  // 0: the growing packets of next_packet_frames(4)
        int max_chunk, conv_chunk;
        int joins_at;  // batch step of its first packet
    };
    const std::vector<Spec> specs = {
        {13, 0, 32, 4, 0}, {9, 4, 2, 4, 0}, {7, 3, 32, 4, 3}, {5, 5, 32, 1, 1}};
    ThreadPool pool(2);
    for (ThreadPool* p : {&pool, static_cast<ThreadPool*>(nullptr)}) {
        const backend::ExecContext ctx{backend::KernelSet::fast, p};
        std::vector<std::vector<int64_t>> codes;
        std::vector<std::unique_ptr<CodecStream>> solo, batched;
        std::vector<std::vector<float>> solo_out(specs.size()), batch_out(specs.size());
        std::vector<int64_t> done(specs.size(), 0);
        for (size_t i = 0; i < specs.size(); ++i) {
            codes.push_back(random_codes(specs[i].frames, uint32_t(40 + i)));
            solo.push_back(decoder_->new_stream(ctx, specs[i].max_chunk, specs[i].conv_chunk));
            batched.push_back(decoder_->new_stream(ctx, specs[i].max_chunk, specs[i].conv_chunk));
            solo_out[i].resize(size_t(specs[i].frames) * 1920);
            batch_out[i].resize(size_t(specs[i].frames) * 1920);
        }
        for (int step = 0;; ++step) {
            std::vector<CodecStream*> streams;
            std::vector<const int64_t*> in;
            std::vector<int64_t> n;
            std::vector<float*> out;
            for (size_t i = 0; i < specs.size(); ++i) {
                const Spec& sp = specs[i];
                if (step < sp.joins_at || done[i] == sp.frames) continue;
                const int packet = sp.packet > 0 ? sp.packet : batched[i]->next_packet_frames(4);
                const int64_t m = std::min<int64_t>(packet, sp.frames - done[i]);
                solo[i]->decode_frames(codes[i].data() + done[i] * 16, m,
                                       solo_out[i].data() + done[i] * 1920);
                streams.push_back(batched[i].get());
                in.push_back(codes[i].data() + done[i] * 16);
                n.push_back(m);
                out.push_back(batch_out[i].data() + done[i] * 1920);
                done[i] += m;
            }
            if (streams.empty()) break;
            CodecStream::decode_batch(streams.data(), in.data(), n.data(), out.data(),
                                      int(streams.size()));
        }
        for (size_t i = 0; i < specs.size(); ++i) {
            EXPECT_EQ(batched[i]->frames_done(), specs[i].frames);
            EXPECT_EQ(testing::compare(batch_out[i], solo_out[i]).max_abs, 0.0)
                << "stream " << i << (p ? ", 2 threads" : ", 1 thread");
        }
    }
}

// A bad code in one stream of a batch is an Error naming the stream, before any stream moves.
TEST_F(CodecStreaming, BatchRejectsBadCodesBeforeDecoding) {
    auto good = random_codes(2, 3), bad = random_codes(2, 4);
    bad[16 + 7] = -1;
    auto a = decoder_->new_stream(), b = decoder_->new_stream();
    CodecStream* streams[] = {a.get(), b.get()};
    const int64_t* in[] = {good.data(), bad.data()};
    const int64_t n[] = {2, 2};
    std::vector<float> wa(2 * 1920), wb(2 * 1920);
    float* out[] = {wa.data(), wb.data()};
    try {
        CodecStream::decode_batch(streams, in, n, out, 2);
        FAIL() << "no error for code -1";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
        EXPECT_NE(std::string(e.what()).find("codec stream 1"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("frame 1"), std::string::npos) << e.what();
    }
    EXPECT_EQ(a->frames_done(), 0);
    EXPECT_EQ(b->frames_done(), 0);
    CodecStream* same[] = {a.get(), a.get()};
    const int64_t* in2[] = {good.data(), good.data()};
    EXPECT_THROW(CodecStream::decode_batch(same, in2, n, out, 2), Error);
}

TEST_F(CodecStreaming, OutputIsClampedAndSized) {
    const auto codes = random_codes(3, 11);
    const auto wav = decoder_->decode(codes.data(), 3);
    ASSERT_EQ(wav.size(), 3u * 1920u);
    for (float v : wav) ASSERT_TRUE(v >= -1.0f && v <= 1.0f);
    EXPECT_TRUE(decoder_->decode(codes.data(), 0).empty());
    EXPECT_EQ(decoder_->samples_per_frame(), 1920);
    EXPECT_EQ(decoder_->sample_rate(), 24000);
}

TEST_F(CodecStreaming, BadCodesAreErrors) {
    auto codes = random_codes(6, 1);
    codes[3 * 16 + 5] = 2048;
    try {
        decoder_->decode(codes.data(), 6);
        FAIL() << "no error for code 2048";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
        EXPECT_NE(std::string(e.what()).find("frame 3 codebook 5"), std::string::npos) << e.what();
    }
    codes[3 * 16 + 5] = -1;
    EXPECT_THROW(decoder_->decode(codes.data(), 6), Error);
    EXPECT_THROW(decoder_->decode(codes.data(), -1), Error);

    // Wrong shapes.
    codes[3 * 16 + 5] = 0;
    EXPECT_THROW(decoder_->decode(codes, {6, 15}), Error);
    EXPECT_THROW(decoder_->decode(codes, {5, 16}), Error);
    EXPECT_THROW(decoder_->decode(codes, {96}), Error);
    EXPECT_EQ(decoder_->decode(codes, {6, 16}).size(), 6u * 1920u);

    // A rejected packet leaves the stream untouched.
    auto stream = decoder_->new_stream({}, 2);
    const auto good = random_codes(4, 2);
    auto bad = good;
    bad[3 * 16 + 15] = 5000;  // frame 1 of the rejected packet
    std::vector<float> out;
    auto part = stream->decode_frames(good.data(), 2);
    out.insert(out.end(), part.begin(), part.end());
    EXPECT_THROW(stream->decode_frames(bad.data() + 32, 2), Error);
    EXPECT_EQ(stream->frames_done(), 2);
    part = stream->decode_frames(good.data() + 32, 2);
    out.insert(out.end(), part.begin(), part.end());
    EXPECT_LE(testing::compare(out, decoder_->decode(good.data(), 4)).max_abs, 1e-5);
}

TEST(CodecConfig, MissingOrWrongFieldsAreNamed) {
    const std::string good = R"({"decoder_config": {"codebook_size": 2048, "codebook_dim": 512,
        "num_quantizers": 16, "latent_dim": 1024, "hidden_size": 512, "intermediate_size": 1024,
        "num_hidden_layers": 8, "num_attention_heads": 16, "num_key_value_heads": 16,
        "head_dim": 64, "rms_norm_eps": 1e-5, "rope_theta": 10000, "sliding_window": 72,
        "upsampling_ratios": [2, 2], "upsample_rates": [8, 5, 4, 3], "decoder_dim": 1536,
        "hidden_act": "silu"}, "output_sample_rate": 24000, "decode_upsample_rate": 1920})";
    const CodecDecoderConfig c = parse_codec_decoder_config(good, "cfg.json");
    EXPECT_EQ(c.head_dim, 64);
    EXPECT_EQ(c.vq_dim(), 256);
    EXPECT_EQ(c.total_upsample(), 1920);

    auto expect_error = [&](const std::string& json, const std::string& needle) {
        try {
            parse_codec_decoder_config(json, "cfg.json");
            ADD_FAILURE() << "no error for " << needle;
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
        }
    };
    auto replace = [&](const std::string& from, const std::string& to) {
        std::string s = good;
        s.replace(s.find(from), from.size(), to);
        return s;
    };
    expect_error(replace("\"head_dim\": 64,", ""), "decoder_config.head_dim: missing");
    expect_error(replace("\"num_hidden_layers\": 8", "\"num_hidden_layers\": \"8\""),
                 "decoder_config.num_hidden_layers");
    expect_error(replace("[8, 5, 4, 3]", "[8, 5, 4]"), "decode_upsample_rate");
    expect_error(replace("\"silu\"", "\"gelu\""), "decoder_config.hidden_act");
    expect_error("{}", "decoder_config: missing");
    expect_error("not json", "cfg.json");
}

}  // namespace
}  // namespace qwen3tts
