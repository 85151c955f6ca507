// Convolutions and the codec's element-wise activations: dispatch between the plain-loop
// references and the SIMD kernels of backend/cpu.
#include <cmath>

#include "backend/cpu/codec_elementwise.hpp"
#include "backend/cpu/mimi_elu.hpp"
#include "backend/ops.hpp"
#include "backend/reference/conv_ref.hpp"

namespace qwen3tts::backend {

ConvWeights prepare_conv1d(const float* w, int c_out, int c_in, int n_tap, int dilation,
                           const float* bias) {
    return cpu::pack_conv1d(w, c_out, c_in, n_tap, dilation, bias);
}

ConvWeights prepare_conv1d(const TensorView& w, int c_out, int c_in, int n_tap, int dilation,
                           const float* bias) {
    return cpu::pack_conv1d(w, c_out, c_in, n_tap, dilation, bias);
}

ConvWeights prepare_linear(const float* w, int out, int in, const float* bias) {
    return cpu::pack_linear(w, out, in, bias);
}

ConvWeights prepare_stacked_linear(const TensorView* const* parts, int n_parts, int in,
                                   const float* bias) {
    return cpu::pack_stacked_linear(parts, n_parts, in, bias);
}

ConvWeights prepare_conv_transpose1d(const float* w, int c_in, int c_out, int kernel, int stride,
                                     const float* bias) {
    return cpu::pack_conv_transpose1d(w, c_in, c_out, kernel, stride, bias);
}

ConvWeights prepare_conv_transpose1d(const TensorView& w, int c_in, int c_out, int kernel,
                                     int stride, const float* bias) {
    return cpu::pack_conv_transpose1d(w, c_in, c_out, kernel, stride, bias);
}

ConvWeights prepare_strided_conv1d(const TensorView& w, int c_out, int c_in, int kernel, int stride,
                                   const float* bias) {
    return cpu::pack_strided_conv1d(w, c_out, c_in, kernel, stride, bias);
}

void add_winograd(ConvWeights& w, int m) {
    cpu::add_winograd(w, m);
}

void conv1d(const ExecContext& ctx, const ConvWeights& w, const float* x, int64_t ldx,
            int64_t n_rows, float* y, int64_t ldy, bool accumulate) {
    const ConvRows part{x, ldx, n_rows, y, ldy};
    conv1d_parts(ctx, w, &part, 1, accumulate);
}

void conv1d_parts(const ExecContext& ctx, const ConvWeights& w, const ConvRows* parts, int n_parts,
                  bool accumulate) {
    if (ctx.kernels == KernelSet::reference) {
        for (int s = 0; s < n_parts; ++s)
            ref::conv1d_prepared(w, parts[s].x, parts[s].ldx, parts[s].n_rows, parts[s].y,
                                 parts[s].ldy, accumulate);
    } else if (!w.winograd.empty()) {
        cpu::conv1d_winograd_parts(w, parts, n_parts, accumulate, ctx.pool);
    } else {
        cpu::conv1d_gemm_parts(w, parts, n_parts, accumulate, ctx.pool);
    }
}

void clamp(const float* x, int64_t n, float lo, float hi, float* y) {
    cpu::clamp(x, n, lo, hi, y);
}

void elu(const ExecContext& ctx, const float* x, int64_t n, float* y) {
    if (ctx.kernels == KernelSet::reference) {
        for (int64_t i = 0; i < n; ++i) y[i] = x[i] > 0.0f ? x[i] : std::expm1(x[i]);
        return;
    }
    // Long 24 kHz stages are split over the pool.
    if (ctx.pool && n >= 65536)
        ctx.pool->parallel_for(n, 4096,
                               [&](int64_t b, int64_t e) { cpu::elu(x + b, e - b, y + b); });
    else
        cpu::elu(x, n, y);
}

void snake_beta(const ExecContext& ctx, const float* x, int64_t ldx, int64_t n_rows, int n_ch,
                const float* a, const float* inv_b, float* y, int64_t ldy) {
    if (ctx.kernels == KernelSet::reference)
        ref::snake_beta_prepared(x, ldx, n_rows, n_ch, a, inv_b, y, ldy);
    else
        cpu::snake_beta(x, ldx, n_rows, n_ch, a, inv_b, y, ldy, ctx.pool);
}

}  // namespace qwen3tts::backend
