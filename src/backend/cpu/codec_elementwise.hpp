// Element-wise kernels of the codec decoder's conv stack, vectorised (AVX-512 / AVX2 picked per
// call from cpu::active_isa(), portable fallback). SnakeBeta is the only hot one: ~35 M sin()
// per second of audio, so it uses a polynomial sin with Cody-Waite reduction (error ~1e-7
// relative to libm for |a·x| < 1e5; the reference in backend/reference/conv_ref.hpp uses std::sin).
// Thread-safety: pure functions; with a pool, rows are split over threads.
#pragma once

#include <cstdint>

namespace qwen3tts {
class ThreadPool;
}

namespace qwen3tts::cpu {

// SnakeBeta with precomputed per-channel parameters a = exp(alpha), inv_b = 1/(exp(beta)+1e-9):
// y[t,c] = x[t,c] + inv_b[c] · sin(a[c] · x[t,c])².  In place is allowed (y == x, ldy == ldx).
void snake_beta(const float* x, int64_t ldx, int64_t n_rows, int n_ch, const float* a,
                const float* inv_b, float* y, int64_t ldy, ThreadPool* pool);

// y = min(max(x, lo), hi), n values, in place allowed.
void clamp(const float* x, int64_t n, float lo, float hi, float* y);

}  // namespace qwen3tts::cpu
