// Plain-loop reference versions of the codec conv-stack ops (the oracle for the fast kernels
// in backend/cpu/conv_gemm and codec_elementwise). They take weights in torch layout and
// follow the PyTorch definitions literally; no blocking, no SIMD, no threads.
// Activations are channels-last [rows, channels] with a row stride, as in the fast kernels.
#pragma once

#include <cstdint>

#include "backend/cpu/conv_gemm.hpp"

namespace qwen3tts::ref {

// Causal Conv1d, torch weight w [c_out, c_in, k], dilation d, optional bias [c_out]:
// y[t,o] = (accumulate ? y[t,o] : 0) + b[o] + Σ_j Σ_i w[o,i,j] · x_hist[t + j·d, i],
// where x_hist points (k-1)·d rows before the first current input row.
void conv1d(const float* x_hist, int64_t ldx, int64_t n_rows, const float* w, const float* bias,
            int c_out, int c_in, int k, int dilation, float* y, int64_t ldy, bool accumulate);

// Causal ConvTranspose1d (torch weight w [c_in, c_out, kernel], stride s, kernel = m·s),
// right-trimmed to n_in·s outputs: y[t,o] = b[o] + Σ_n Σ_i w[i,o,t-n·s] · x[n,i] over inputs n
// with 0 <= t-n·s < kernel. x_hist points m-1 rows before input row 0 (those rows are the
// previous inputs; zeros at stream start).
void conv_transpose1d(const float* x_hist, int64_t ldx, int64_t n_in, const float* w,
                      const float* bias, int c_in, int c_out, int kernel, int stride, float* y,
                      int64_t ldy);

// SnakeBeta with log-scale parameters as stored: y = x + 1/(exp(beta)+1e-9) · sin(exp(alpha)·x)².
void snake_beta(const float* x, int64_t ldx, int64_t n_rows, int n_ch, const float* alpha,
                const float* beta, float* y, int64_t ldy);

// conv1d on prepared weights (the fast kernels' panel layout [panel][tap][c_in][kPanel]),
// read element by element: the reference set's convolution for KernelSet::reference.
void conv1d_prepared(const cpu::PackedConv& w, const float* x_hist, int64_t ldx, int64_t n_rows,
                     float* y, int64_t ldy, bool accumulate);

// SnakeBeta on the prepared per-channel parameters a = exp(alpha), inv_b = 1/(exp(beta)+1e-9),
// with std::sin.
void snake_beta_prepared(const float* x, int64_t ldx, int64_t n_rows, int n_ch, const float* a,
                         const float* inv_b, float* y, int64_t ldy);

}  // namespace qwen3tts::ref
