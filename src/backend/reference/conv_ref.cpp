#include "backend/reference/conv_ref.hpp"

#include <cmath>

namespace qwen3tts::ref {

void conv1d(const float* x_hist, int64_t ldx, int64_t n_rows, const float* w, const float* bias,
            int c_out, int c_in, int k, int dilation, float* y, int64_t ldy, bool accumulate) {
    for (int64_t t = 0; t < n_rows; ++t)
        for (int o = 0; o < c_out; ++o) {
            float acc = 0.0f;
            for (int i = 0; i < c_in; ++i)
                for (int j = 0; j < k; ++j)
                    acc += w[(int64_t(o) * c_in + i) * k + j] *
                           x_hist[(t + int64_t(j) * dilation) * ldx + i];
            if (bias) acc += bias[o];
            y[t * ldy + o] = accumulate ? y[t * ldy + o] + acc : acc;
        }
}

void conv_transpose1d(const float* x_hist, int64_t ldx, int64_t n_in, const float* w,
                      const float* bias, int c_in, int c_out, int kernel, int stride, float* y,
                      int64_t ldy) {
    const int m = kernel / stride;
    for (int64_t t = 0; t < n_in * stride; ++t)
        for (int o = 0; o < c_out; ++o) {
            float acc = 0.0f;
            // Inputs n contributing to output t: n·s <= t < n·s + kernel, n >= -(m-1).
            for (int64_t n = t / stride - (m - 1); n <= t / stride; ++n) {
                const int64_t tap = t - n * stride;
                if (tap < 0 || tap >= kernel) continue;
                const float* xr = x_hist + (n + m - 1) * ldx;
                for (int i = 0; i < c_in; ++i)
                    acc += w[(int64_t(i) * c_out + o) * kernel + tap] * xr[i];
            }
            if (bias) acc += bias[o];
            y[t * ldy + o] = acc;
        }
}

void snake_beta(const float* x, int64_t ldx, int64_t n_rows, int n_ch, const float* alpha,
                const float* beta, float* y, int64_t ldy) {
    for (int64_t t = 0; t < n_rows; ++t)
        for (int c = 0; c < n_ch; ++c) {
            const float a = std::exp(alpha[c]);
            const float inv_b = 1.0f / (std::exp(beta[c]) + 1e-9f);
            const float v = x[t * ldx + c];
            const float s = std::sin(v * a);
            y[t * ldy + c] = v + inv_b * (s * s);
        }
}

void conv1d_prepared(const cpu::PackedConv& w, const float* x_hist, int64_t ldx, int64_t n_rows,
                     float* y, int64_t ldy, bool accumulate) {
    const int64_t panel_floats = int64_t(w.n_tap) * w.c_in * cpu::kPanel;
    for (int64_t t = 0; t < n_rows; ++t)
        for (int o = 0; o < w.c_out; ++o) {
            const float* panel =
                w.panels.data() + (o / cpu::kPanel) * panel_floats + o % cpu::kPanel;
            float acc = 0.0f;
            for (int j = 0; j < w.n_tap; ++j)
                for (int i = 0; i < w.c_in; ++i)
                    acc += panel[(int64_t(j) * w.c_in + i) * cpu::kPanel] *
                           x_hist[(t + int64_t(j) * w.dilation) * ldx + i];
            if (!w.bias.empty()) acc += w.bias[size_t(o)];
            y[t * ldy + o] = accumulate ? y[t * ldy + o] + acc : acc;
        }
}

void snake_beta_prepared(const float* x, int64_t ldx, int64_t n_rows, int n_ch, const float* a,
                         const float* inv_b, float* y, int64_t ldy) {
    for (int64_t t = 0; t < n_rows; ++t)
        for (int c = 0; c < n_ch; ++c) {
            const float v = x[t * ldx + c];
            const float s = std::sin(v * a[c]);
            y[t * ldy + c] = v + inv_b[c] * (s * s);
        }
}

}  // namespace qwen3tts::ref
