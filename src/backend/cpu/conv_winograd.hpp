// Winograd's minimal filtering for the codec's dilated convolutions: fewer multiply-adds for
// the same convolution, at a rounding error a few times that of the direct sum.
//
// F(m, r) computes m outputs of an r-tap filter from m + r - 1 inputs with m + r - 1 products
// instead of m·r (Toom-Cook: evaluate at n = m + r - 1 points, multiply, interpolate). For a
// convolution over C_in channels each product is a C_in x C_out GEMM, so the 7-tap convs of the
// codec's residual units take 8 products per 2 outputs with F(2,7) (1.75x fewer multiply-adds),
// 9 per 3 with F(3,7) (2.3x), 10 per 4 with F(4,7) (2.8x). A tile is m outputs of one phase of
// the dilation d (rows t, t + d, ..., t + (m-1)d), which read inputs t + l·d, l < n: with
// channels-last rows the dilation costs nothing. Tiles at the end of a call that would read
// past the given rows take zeros there (the outputs that need them are not written), so every
// output row is a Winograd output and the direct weights are not needed by this path.
//
// Accuracy: evaluation points 0, ±1, ±2, ±1/2 (then ±4), each input-transform row scaled to a
// largest entry of 1 and its factor moved into the (exact, f64) weight transform. The error of
// one convolution, relative to its largest output, measured against f64 on random weights of
// the codec's scale (tests/ops): see docs/codec.md. An output depends on which tile it falls in,
// so unlike the direct path its last bits depend on where the caller's packets begin.
//
// Transforms run with AVX-512 where available (else plain loops); the GEMMs are conv_gemm's
// micro-kernels. Thread-safety as conv1d_gemm.
#pragma once

#include "backend/cpu/conv_gemm.hpp"

namespace qwen3tts::cpu {

// Largest output tile: F(4, r) with r <= 7 is the largest whose error was measured (n <= 12).
constexpr int kMaxWinogradTile = 4;

// Adds w.winograd for tiles of m outputs (2 <= m <= kMaxWinogradTile), from w's direct panels.
// Error(invalid_argument) for a conv of one tap or an m out of range.
void add_winograd(PackedConv& w, int m);

// conv1d_gemm_parts (same arguments, same result up to rounding) through w.winograd, which
// must not be empty.
void conv1d_winograd_parts(const PackedConv& w, const ConvRows* parts, int n_parts, bool accumulate,
                           ThreadPool* pool);

}  // namespace qwen3tts::cpu
