// The bytes of weights one frame reads (bench's floor), on the real-size 0.6B: bf16 as the
// shapes give them (docs/benchmarks.md: 887 MB talker, 2.42 GB code predictor), q8/q4 at the
// size of the quantized buffers the model actually holds, and per component.
#include <gtest/gtest.h>

#include "api/model_impl.hpp"
#include "golden/golden_cases.hpp"
#include "qwen3tts/benchmark.hpp"

namespace qwen3tts {
namespace {

// Bytes of one decoder layer's seven projections, each row stored with `row_bytes(cols)`.
template <typename RowBytes>
size_t layer_bytes(const TransformerConfig& c, int64_t width, RowBytes row_bytes) {
    const int64_t q = c.num_attention_heads * c.head_dim, kv = c.num_key_value_heads * c.head_dim;
    const int64_t ff = c.intermediate_size;
    const struct {
        int64_t rows, cols;
    } m[] = {{q, width},  {kv, width}, {kv, width}, {width, q},
             {ff, width}, {ff, width}, {width, ff}};
    size_t bytes = 0;
    for (const auto& x : m) bytes += size_t(x.rows) * row_bytes(x.cols);
    return bytes;
}

size_t bf16_row(int64_t cols) {
    return size_t(cols) * 2;
}
size_t q8_row(int64_t cols) {
    return size_t(cols) + size_t(cols / 32) * 2;  // int8 codes + an f16 scale per 32
}
size_t q4_row(int64_t cols) {
    return size_t(cols / 2) + size_t(cols / 32) * 2;  // two codes a byte + an f16 scale per 32
}

TEST(FrameWeightBytes, RealSize06bBf16IsWhatTheShapesGive) {
    const Model model = Model::load(golden_cases::checkpoint_dir("real-0.6b-custom_voice"));
    const TalkerConfig& tc = model.impl()->model->config().talker;
    const TransformerConfig& cp = tc.code_predictor;
    const FrameWeightBytes b = frame_weight_bytes(model);
    // The 0.6B's widths are equal: no small_to_mtp_projection.
    ASSERT_EQ(tc.hidden_size, cp.hidden_size);
    EXPECT_EQ(b.talker, size_t(tc.num_hidden_layers) * layer_bytes(tc, tc.hidden_size, bf16_row) +
                            size_t(tc.vocab_size) * bf16_row(tc.hidden_size));
    EXPECT_EQ(b.predictor,
              15 * size_t(cp.num_hidden_layers) * layer_bytes(cp, cp.hidden_size, bf16_row) +
                  15 * size_t(cp.vocab_size) * bf16_row(cp.hidden_size));
    EXPECT_EQ(b.talker / 1000000, 887u);
    EXPECT_EQ(b.predictor / 10000000, 242u);  // 2.42 GB
}

TEST(FrameWeightBytes, QuantizedLayersCountAtTheirHeldSizePerComponent) {
    LoadOptions o;
    o.quant = "talker=q4,predictor=q8";
    const Model model = Model::load(golden_cases::checkpoint_dir("real-0.6b-custom_voice"), o);
    const TtsModel& m = *model.impl()->model;
    const TalkerConfig& tc = m.config().talker;
    const TransformerConfig& cp = tc.code_predictor;
    const FrameWeightBytes b = frame_weight_bytes(model);
    const size_t head = size_t(tc.vocab_size) * bf16_row(tc.hidden_size);
    // The buffers the talker holds, and the same from the q4 layout.
    EXPECT_EQ(b.talker, m.talker().stack().weight_bytes() + head);
    EXPECT_EQ(b.talker,
              size_t(tc.num_hidden_layers) * layer_bytes(tc, tc.hidden_size, q4_row) + head);
    EXPECT_EQ(b.predictor,
              15 * size_t(cp.num_hidden_layers) * layer_bytes(cp, cp.hidden_size, q8_row) +
                  15 * size_t(cp.vocab_size) * bf16_row(cp.hidden_size));
}

}  // namespace
}  // namespace qwen3tts
