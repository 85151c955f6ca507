#include "nn/conv1d.hpp"

#include <array>
#include <cstring>

#include "core/error.hpp"
#include "nn/codec_weights.hpp"
#include "weights/safetensors.hpp"

namespace qwen3tts {

namespace {

// Copies the carried state into the history() rows in front of x.
void load_history(const float* state, int64_t n_hist, int ch, float* x, int64_t ldx) {
    for (int64_t r = 0; r < n_hist; ++r)
        std::memcpy(x + (r - n_hist) * ldx, state + r * ch, sizeof(float) * size_t(ch));
}

// Saves the last n_hist rows of [x - n_hist, x + n_rows) (they may lie partly in the old
// history when n_rows < n_hist; memmove semantics are not needed because state is separate).
void save_history(const float* x, int64_t ldx, int64_t n_rows, int64_t n_hist, int ch,
                  float* state) {
    for (int64_t r = 0; r < n_hist; ++r)
        std::memcpy(state + r * ch, x + (n_rows - n_hist + r) * ldx, sizeof(float) * size_t(ch));
}

}  // namespace

void CausalConv1d::load(const WeightMap& weights, const std::string& prefix, int c_in, int c_out,
                        int kernel, int dilation) {
    const auto b = load_f32(weights, prefix + ".bias", {c_out});
    w_ = load_packed(weights, prefix + ".weight", {c_out, c_in, kernel}, [&](const TensorView& t) {
        return backend::prepare_conv1d(t, c_out, c_in, kernel, dilation, b.data());
    });
}

void CausalConv1d::forward(float* x, int64_t ldx, int64_t n_rows, float* state, float* y,
                           int64_t ldy, bool accumulate, const backend::ExecContext& ctx) const {
    const CausalConvIo io{x, ldx, n_rows, state, y, ldy};
    forward_parts(&io, 1, accumulate, ctx);
}

void CausalConv1d::forward_parts(const CausalConvIo* io, int n, bool accumulate,
                                 const backend::ExecContext& ctx) const {
    QWEN3TTS_ASSERT(n >= 0 && n <= kMaxBatchParts);
    const int64_t h = history();
    std::array<backend::ConvRows, kMaxBatchParts> parts;
    for (int s = 0; s < n; ++s) {
        const CausalConvIo& a = io[s];
        load_history(a.state, h, w_.c_in, a.x, a.ldx);
        parts[size_t(s)] = {a.x - h * a.ldx, a.ldx, a.n_rows, a.y, a.ldy};
    }
    backend::conv1d_parts(ctx, w_, parts.data(), n, accumulate);
    for (int s = 0; s < n; ++s)
        save_history(io[s].x, io[s].ldx, io[s].n_rows, h, w_.c_in, io[s].state);
}

void CausalDepthwiseConv1d::load(const WeightMap& weights, const std::string& prefix, int dim,
                                 int kernel) {
    const auto w = load_f32(weights, prefix + ".weight", {dim, 1, kernel});
    b_ = load_f32(weights, prefix + ".bias", {dim});
    dim_ = dim;
    kernel_ = kernel;
    w_.assign(size_t(kernel) * dim, 0.0f);
    for (int c = 0; c < dim; ++c)
        for (int j = 0; j < kernel; ++j) w_[size_t(j) * dim + c] = w[size_t(c) * kernel + j];
}

void CausalDepthwiseConv1d::forward(float* x, int64_t ldx, int64_t n_rows, float* state, float* y,
                                    int64_t ldy) const {
    const int64_t h = history();
    load_history(state, h, dim_, x, ldx);
    const float* base = x - h * ldx;
    for (int64_t t = 0; t < n_rows; ++t) {
        float* yr = y + t * ldy;
        for (int c = 0; c < dim_; ++c) yr[c] = 0.0f;
        for (int j = 0; j < kernel_; ++j) {
            const float* xr = base + (t + j) * ldx;
            const float* wj = w_.data() + size_t(j) * dim_;
            for (int c = 0; c < dim_; ++c) yr[c] += wj[c] * xr[c];
        }
        for (int c = 0; c < dim_; ++c) yr[c] += b_[size_t(c)];
    }
    save_history(x, ldx, n_rows, h, dim_, state);
}

void CausalConvTranspose1d::load(const WeightMap& weights, const std::string& prefix, int c_in,
                                 int c_out, int kernel, int stride) {
    if (stride <= 0 || kernel % stride != 0)
        throw Error(ErrorCode::model, prefix + ": transposed conv kernel " +
                                          std::to_string(kernel) + " is not a multiple of stride " +
                                          std::to_string(stride));
    const auto b = load_f32(weights, prefix + ".bias", {c_out});
    c_in_ = c_in;
    c_out_ = c_out;
    kernel_ = kernel;
    stride_ = stride;
    w_ = load_packed(weights, prefix + ".weight", {c_in, c_out, kernel}, [&](const TensorView& t) {
        return backend::prepare_conv_transpose1d(t, c_in, c_out, kernel, stride, b.data());
    });
}

double CausalConvTranspose1d::flops(int64_t n_in) const {
    return w_.flops(n_in);
}

void CausalConvTranspose1d::forward(float* x, int64_t ldx, int64_t n_in, float* state, float* y,
                                    int64_t ldy, const backend::ExecContext& ctx) const {
    if (ldy != c_out_)
        throw Error(ErrorCode::internal, "transposed conv: output row stride " +
                                             std::to_string(ldy) + " != c_out " +
                                             std::to_string(c_out_));
    const CausalConvIo io{x, ldx, n_in, state, y, ldy};
    forward_parts(&io, 1, ctx);
}

void CausalConvTranspose1d::forward_parts(const CausalConvIo* io, int n,
                                          const backend::ExecContext& ctx) const {
    QWEN3TTS_ASSERT(n >= 0 && n <= kMaxBatchParts);
    const int64_t h = history();
    std::array<backend::ConvRows, kMaxBatchParts> parts;
    for (int s = 0; s < n; ++s) {
        const CausalConvIo& a = io[s];
        QWEN3TTS_ASSERT(a.ldy == c_out_);
        load_history(a.state, h, c_in_, a.x, a.ldx);
        parts[size_t(s)] = {a.x - h * a.ldx, a.ldx, a.n_rows, a.y, a.ldy * stride_};
    }
    backend::conv1d_parts(ctx, w_, parts.data(), n, false);
    for (int s = 0; s < n; ++s)
        save_history(io[s].x, io[s].ldx, io[s].n_rows, h, c_in_, io[s].state);
}

}  // namespace qwen3tts
