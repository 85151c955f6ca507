// linear(): dispatch between the reference loops and the SIMD kernels.
#include "backend/cpu/linear_cpu.hpp"
#include "backend/cpu/linear_quant_cpu.hpp"
#include "backend/ops.hpp"
#include "backend/reference/linear_quant_ref.hpp"
#include "backend/reference/linear_ref.hpp"
#include "core/error.hpp"

namespace qwen3tts::backend {

void linear(const ExecContext& ctx, const float* x, int64_t n, const TensorView& w,
            const float* bias, float* y) {
    QWEN3TTS_ASSERT(w.shape.size() == 2);
    if (ctx.kernels == KernelSet::reference) {
        linear_reference(x, n, w, bias, y);
        return;
    }
    const TensorView* ws[1] = {&w};
    if (ctx.bf16_activations && linear_cpu_bf16_dot(ctx.pool, x, n, ws, &bias, &y, 1)) return;
    linear_cpu(ctx.pool, x, n, w, bias, y);
}

namespace {

// x quantized per block for the integer kernels, in a buffer reused per thread (a linear never
// runs inside another on the same thread): no allocation once it has grown.
const QuantizedActivations& quantized_input(const ExecContext& ctx, const float* x, int64_t n,
                                            int64_t cols) {
    thread_local QuantizedActivations xq;
    if (ctx.kernels == KernelSet::reference)
        xq.quantize(x, n, cols);
    else
        quantize_activations_cpu(x, n, cols, xq);
    return xq;
}

void linear_quantized(const ExecContext& ctx, const QuantizedActivations& xq,
                      const QuantizedWeights& w, const float* bias, float* y) {
    if (ctx.kernels == KernelSet::reference)
        linear_quant_reference(xq, w, bias, y);
    else
        linear_quant_cpu(ctx.pool, xq, w, bias, y);
}

}  // namespace

void linear(const ExecContext& ctx, const float* x, int64_t n, const QuantizedWeights& w,
            const float* bias, float* y) {
    linear_quantized(ctx, quantized_input(ctx, x, n, w.cols), w, bias, y);
}

void linear_group(const ExecContext& ctx, const float* x, int64_t n, const TensorView* const* ws,
                  float* const* ys, int count) {
    if (ctx.kernels == KernelSet::reference) {
        for (int j = 0; j < count; ++j) linear_reference(x, n, *ws[j], nullptr, ys[j]);
        return;
    }
    const float* biases[4] = {};
    if (ctx.bf16_activations && count <= 4 &&
        linear_cpu_bf16_dot(ctx.pool, x, n, ws, biases, ys, count))
        return;
    linear_cpu_group(ctx.pool, x, n, ws, ys, count);
}

void linear(const ExecContext& ctx, const float* x, int64_t n, const LinearWeights& w,
            const float* bias, float* y) {
    if (w.quantized())
        linear(ctx, x, n, *w.quantized(), bias, y);
    else
        linear(ctx, x, n, w.view(), bias, y);
}

void linear_group(const ExecContext& ctx, const float* x, int64_t n, const LinearWeights* const* ws,
                  float* const* ys, int count) {
    QWEN3TTS_ASSERT(count <= 4);
    bool all_stored = true;
    for (int j = 0; j < count; ++j) all_stored = all_stored && !ws[j]->quantized();
    if (all_stored) {
        const TensorView* views[4];
        for (int j = 0; j < count; ++j) views[j] = &ws[j]->view();
        linear_group(ctx, x, n, views, ys, count);
        return;
    }
    bool all_quantized = true;
    for (int j = 0; j < count; ++j) all_quantized = all_quantized && ws[j]->quantized();
    if (all_quantized) {  // the shared input quantized once, one parallel region
        const QuantizedActivations& xq = quantized_input(ctx, x, n, ws[0]->cols());
        const QuantizedWeights* qs[4];
        const float* biases[4] = {};
        for (int j = 0; j < count; ++j) qs[j] = ws[j]->quantized();
        if (ctx.kernels == KernelSet::reference) {
            for (int j = 0; j < count; ++j) linear_quant_reference(xq, *qs[j], nullptr, ys[j]);
            return;
        }
        linear_quant_cpu_group(ctx.pool, xq, qs, biases, ys, count);
        return;
    }
    for (int j = 0; j < count; ++j) linear(ctx, x, n, *ws[j], nullptr, ys[j]);
}

}  // namespace qwen3tts::backend
