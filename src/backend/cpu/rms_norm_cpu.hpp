// RMSNorm rows, vectorised (AVX-512 / AVX2 picked per call from cpu::active_isa(), portable
// fallback): y = w ⊙ x · 1/sqrt(mean(x²) + eps), the mean in f64.
//
// Σx² runs in eight interleaved f64 partial sums (element j goes to sum j mod 8), combined
// pairwise at the end: eight independent chains instead of one, the same order at every level
// (one AVX-512 register or two AVX2 registers hold the eight sums), so every level gives the
// same bits. Squares of floats are exact in f64; the order only moves the sum by ~1e-16
// relative, far below the float rounding of the scale it gives.
// Thread-safety: pure function.
#pragma once

#include <cstdint>

namespace qwen3tts::cpu {

// Rows [0, n) of x [n, d] into y (y may alias x).
void rms_norm_rows(const float* x, const float* w, int64_t n, int64_t d, float eps, float* y);

}  // namespace qwen3tts::cpu
