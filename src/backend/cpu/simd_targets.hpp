// What the SIMD kernel files share: the per-function target attributes (the files are compiled
// for baseline x86-64 and pick a level at run time), and small register helpers.
#pragma once

#include <immintrin.h>

// GCC 12's AVX-512 headers trip -W(maybe-)uninitialized inside their own inline functions
// (_mm512_undefined_* placeholders, e.g. in _mm512_reduce_add_ps); the warning is about the
// header, not the including code (clang has no such warning).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

#define QWEN3TTS_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,f16c,fma")))
#define QWEN3TTS_AVX512_VNNI \
    __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512vnni,f16c,fma")))
#define QWEN3TTS_AVX2 __attribute__((target("avx2,fma,f16c")))
#define QWEN3TTS_AVX2_VNNI __attribute__((target("avx2,fma,f16c,avxvnni")))

namespace qwen3tts::backend {

// The sum of the 8 lanes.
QWEN3TTS_AVX2 inline float hsum256(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

}  // namespace qwen3tts::backend
