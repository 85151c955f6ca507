// Rotate-half (NeoX) RoPE, vectorised (AVX-512 / AVX2 picked per call from cpu::active_isa(),
// portable fallback). Every level computes each value as the plain definition does, a·c − b·s
// and b·c + a·s with a rounding after every product and sum: this file is compiled with
// -ffp-contract=off (CMakeLists.txt), so no level fuses a product into an FMA and all give the
// same bits as the scalar loop the op had before (golden results do not move).
// Thread-safety: pure function.
#pragma once

#include <cstdint>

namespace qwen3tts::cpu {

// Rows of x [n, ldx], each holding n_head heads of head_dim values at its start, rotated in
// place with cos/sin [n, head_dim/2] (one table row per x row).
void rope_rows(float* x, int64_t n, int64_t ldx, int64_t n_head, int64_t head_dim, const float* cos,
               const float* sin);

}  // namespace qwen3tts::cpu
