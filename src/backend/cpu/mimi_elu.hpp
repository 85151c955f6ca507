// ELU (α = 1) for Mimi's SEANet encoder: y = x > 0 ? x : expm1(x). It runs on every
// activation of the 24 kHz, 64-channel first stage (~6 M values per second of audio), where
// libm's expm1f would cost as much as the convolutions, so the negative branch is a
// vectorised polynomial (AVX-512 or AVX2+FMA picked per call from cpu::active_isa(); libm at
// the generic level):
// |x| <= 0.5: Taylor series of expm1 to x^9; otherwise 2^k·exp(r) − 1 with Cody-Waite
// reduction and a degree-7 exp polynomial. Error < 2e-7 relative to the result (the
// reference, torch's CPU ELU, is itself an exp-based kernel of similar accuracy).
// Thread-safety: pure function.
#pragma once

#include <cstdint>

namespace qwen3tts::cpu {

// n values; in place allowed (y == x).
void elu(const float* x, int64_t n, float* y);

}  // namespace qwen3tts::cpu
