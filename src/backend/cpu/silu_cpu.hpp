// SiLU (x · sigmoid(x)) of the talker's, code predictor's and codec transformer's MLPs,
// vectorised (AVX-512 / AVX2 picked per call from cpu::active_isa(), portable fallback).
//
// exp(−x) is computed in double precision (Cody-Waite reduction by ln 2, degree-11 Taylor
// polynomial, error ~1e-15 relative) and rounded to float once: the correctly rounded expf
// except within ~1e-15 of a midpoint between two floats (none found in a sweep against
// long-double expl; glibc's expf, whose bound is 0.502 ulp, differs from it by one ulp on
// 0.4 % of floats). Every level runs the same IEEE operations in the same order (explicit
// FMAs in the portable code too), so all levels, and every position of a value in a vector or
// a tail, give the same bits: a batched step's MLP equals its rows' single steps.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>

namespace qwen3tts::cpu {

// exp(t) rounded to float as described above (t = ±inf and NaN as expf gives them).
float exp_via_double(float t);

// out = gate / (1 + exp(−gate)) · up over n values; out may alias gate or up.
void silu_mul(const float* gate, const float* up, int64_t n, float* out);

// x = x / (1 + exp(−x)) over n values.
void silu_inplace(float* x, int64_t n);

}  // namespace qwen3tts::cpu
