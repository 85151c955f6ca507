#include "model/codec_decoder_block.hpp"

#include <algorithm>

namespace qwen3tts {

void CodecDecoderBlockState::reset(const CodecDecoderBlock& block) {
    up.assign(block.up_.state_floats(), 0.0f);
    for (int u = 0; u < 3; ++u)
        conv1[size_t(u)].assign(block.units_[size_t(u)].conv1.state_floats(), 0.0f);
}

void CodecDecoderBlock::load(const WeightMap& weights, const std::string& prefix, int c_in,
                             int c_out, int rate) {
    snake_.load(weights, prefix + ".block.0", c_in);
    up_.load(weights, prefix + ".block.1.conv", c_in, c_out, 2 * rate, rate);
    for (int u = 0; u < 3; ++u) {
        const std::string p = prefix + ".block." + std::to_string(u + 2);
        CodecResidualUnit& ru = units_[size_t(u)];
        ru.act1.load(weights, p + ".act1", c_out);
        ru.conv1.load(weights, p + ".conv1.conv", c_out, c_out, 7, kDilations[u]);
        ru.act2.load(weights, p + ".act2", c_out);
        ru.conv2.load(weights, p + ".conv2.conv", c_out, c_out, 1, 1);
    }
}

double CodecDecoderBlock::flops(int64_t n_in) const {
    const int64_t n = n_in * rate();
    double f = up_.flops(n_in);
    for (const auto& ru : units_) f += ru.conv1.flops(n) + ru.conv2.flops(n);
    return f;
}

size_t CodecDecoderBlock::stage_floats(int64_t n_in) const {
    const int64_t n = n_in * rate();
    return size_t(std::max((kStageHead + n_in) * c_in(), (kStageHead + n) * c_out()));
}

void CodecDecoderBlock::forward(const float* x, int64_t n_in, CodecDecoderBlockState& st,
                                float* res, float* stage, float* tmp,
                                const backend::ExecContext& ctx) const {
    const int ci = c_in(), co = c_out();
    float* up_in = stage + kStageHead * ci;
    snake_.forward(x, ci, n_in, up_in, ci, ctx);
    up_.forward(up_in, ci, n_in, st.up.data(), res, co, ctx);
    const int64_t n = n_in * rate();
    float* conv_in = stage + kStageHead * co;
    for (int u = 0; u < 3; ++u) {
        const CodecResidualUnit& ru = units_[size_t(u)];
        ru.act1.forward(res, co, n, conv_in, co, ctx);
        ru.conv1.forward(conv_in, co, n, st.conv1[size_t(u)].data(), tmp, co, false, ctx);
        ru.act2.forward(tmp, co, n, tmp, co, ctx);
        // conv2 has no left context (k=1): no state; the residual is added in the epilogue.
        ru.conv2.forward(tmp, co, n, nullptr, res, co, true, ctx);
    }
}

}  // namespace qwen3tts
