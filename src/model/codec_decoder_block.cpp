#include "model/codec_decoder_block.hpp"

#include <algorithm>
#include <array>

#include "core/error.hpp"

namespace qwen3tts {

void CodecDecoderBlockState::reset(const CodecDecoderBlock& block) {
    up.assign(block.up_.state_floats(), 0.0f);
    for (int u = 0; u < 3; ++u)
        conv1[size_t(u)].assign(block.units_[size_t(u)].conv1.state_floats(), 0.0f);
}

void CodecDecoderBlock::load(const WeightMap& weights, const std::string& prefix, int c_in,
                             int c_out, int rate, int winograd_tile) {
    snake_.load(weights, prefix + ".block.0", c_in);
    up_.load(weights, prefix + ".block.1.conv", c_in, c_out, 2 * rate, rate);
    for (int u = 0; u < 3; ++u) {
        const std::string p = prefix + ".block." + std::to_string(u + 2);
        CodecResidualUnit& ru = units_[size_t(u)];
        ru.act1.load(weights, p + ".act1", c_out);
        ru.conv1.load(weights, p + ".conv1.conv", c_out, c_out, 7, kDilations[u]);
        if (winograd_tile > 0) ru.conv1.add_winograd(winograd_tile);
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
    const CodecDecoderBlockIo io{x, n_in, &st, res, stage, tmp};
    forward_parts(&io, 1, ctx);
}

void CodecDecoderBlock::forward_parts(const CodecDecoderBlockIo* io, int n,
                                      const backend::ExecContext& ctx) const {
    QWEN3TTS_ASSERT(n >= 0 && n <= kMaxBatchParts);
    const int ci = c_in(), co = c_out();
    std::array<CausalConvIo, kMaxBatchParts> conv;
    for (int s = 0; s < n; ++s) {
        const CodecDecoderBlockIo& a = io[s];
        float* up_in = a.stage + kStageHead * ci;
        snake_.forward(a.x, ci, a.n_in, up_in, ci, ctx);
        conv[size_t(s)] = {up_in, ci, a.n_in, a.st->up.data(), a.res, co};
    }
    up_.forward_parts(conv.data(), n, ctx);
    for (int u = 0; u < 3; ++u) {
        const CodecResidualUnit& ru = units_[size_t(u)];
        for (int s = 0; s < n; ++s) {
            const CodecDecoderBlockIo& a = io[s];
            const int64_t rows = a.n_in * rate();
            float* conv_in = a.stage + kStageHead * co;
            ru.act1.forward(a.res, co, rows, conv_in, co, ctx);
            conv[size_t(s)] = {conv_in, co, rows, a.st->conv1[size_t(u)].data(), a.tmp, co};
        }
        ru.conv1.forward_parts(conv.data(), n, false, ctx);
        for (int s = 0; s < n; ++s) {
            const CodecDecoderBlockIo& a = io[s];
            const int64_t rows = a.n_in * rate();
            ru.act2.forward(a.tmp, co, rows, a.tmp, co, ctx);
            // conv2 has no left context (k=1): no state; the residual is added in the epilogue.
            conv[size_t(s)] = {a.tmp, co, rows, nullptr, a.res, co};
        }
        ru.conv2.forward_parts(conv.data(), n, true, ctx);
    }
}

}  // namespace qwen3tts
