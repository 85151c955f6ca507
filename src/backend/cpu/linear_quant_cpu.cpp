#include "backend/cpu/linear_quant_cpu.hpp"

#include <algorithm>

#include "backend/cpu/cpu_features.hpp"
#include "backend/cpu/simd_targets.hpp"
#include "backend/reference/linear_quant_ref.hpp"
#include "core/error.hpp"

namespace qwen3tts::backend {

namespace {

enum class Kernel { generic, avx2, avx512_vnni };

Kernel active_kernel() {
    switch (cpu::active_isa()) {
        case cpu::Isa::avx512:
            return cpu::has_avx512_vnni() ? Kernel::avx512_vnni : Kernel::avx2;
        case cpu::Isa::avx2:
            return Kernel::avx2;
        default:
            return Kernel::generic;
    }
}

// One weight row against one activation row: everything the kernels need of both.
struct RowPair {
    const uint8_t* codes;    // the weight row's codes
    const uint16_t* wscale;  // its f16 block scales
    const int8_t* xq;        // the activation row
    const float* xscale;     // its block scales
    const float* xsum;       // its scale × Σq per block
    int64_t blocks;
};

// ---- AVX-512 VNNI ----------------------------------------------------------------------------

// The 64 codes of block pair p as bytes in weight order.
template <QuantFormat F>
QWEN3TTS_AVX512_VNNI inline __m512i codes64(const uint8_t* codes, int64_t p) {
    if constexpr (F == QuantFormat::q8) {
        return _mm512_loadu_si512(codes + p * 64);
    } else {
        const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(codes + p * 32));
        const __m256i nibble = _mm256_set1_epi8(0x0f);
        const __m256i lo = _mm256_and_si256(v, nibble);
        const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), nibble);
        return _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
    }
}

// The 32 codes of an odd last block (codes points at the block) as bytes in weight order.
template <QuantFormat F>
QWEN3TTS_AVX512_VNNI inline __m256i codes32(const uint8_t* codes) {
    if constexpr (F == QuantFormat::q8) {
        return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(codes));
    } else {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(codes));
        const __m128i nibble = _mm_set1_epi8(0x0f);
        return _mm256_set_m128i(_mm_and_si128(_mm_srli_epi16(v, 4), nibble),
                                _mm_and_si128(v, nibble));
    }
}

// Σ_b ws_b · xs_b · Σ_j code_j · q_j  −  offset · Σ_b ws_b · xsum_b, 16 blocks per scale load.
template <QuantFormat F>
QWEN3TTS_AVX512_VNNI float dot_vnni(const RowPair& rp, int offset) {
    // Lanes 0-7 of a vpdpbusd result sum the pair's first block, lanes 8-15 its second.
    const __m512i pair_lanes = _mm512_set_epi32(1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0);
    __m512 acc = _mm512_setzero_ps(), corr = _mm512_setzero_ps();
    for (int64_t b = 0; b < rp.blocks; b += 16) {
        const int64_t nb = std::min<int64_t>(16, rp.blocks - b);
        const __mmask16 m = __mmask16((1u << nb) - 1u);
        const __m512 ws = _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(m, rp.wscale + b));
        corr = _mm512_fmadd_ps(ws, _mm512_maskz_loadu_ps(m, rp.xsum + b), corr);
        const __m512 scale = _mm512_mul_ps(ws, _mm512_maskz_loadu_ps(m, rp.xscale + b));
        for (int64_t p = 0; p < nb / 2; ++p) {
            const __m512i u = codes64<F>(rp.codes, b / 2 + p);
            const __m512i x = _mm512_loadu_si512(rp.xq + (b + 2 * p) * kQuantBlock);
            const __m512i d = _mm512_dpbusd_epi32(_mm512_setzero_si512(), u, x);
            const __m512i lanes = _mm512_add_epi32(pair_lanes, _mm512_set1_epi32(int(2 * p)));
            acc = _mm512_fmadd_ps(_mm512_cvtepi32_ps(d), _mm512_permutexvar_ps(lanes, scale), acc);
        }
        if (nb % 2) {  // an odd last block (rows of 32 · odd columns)
            const int64_t last = b + nb - 1;
            const __m256i u = codes32<F>(rp.codes + last * (F == QuantFormat::q8 ? 32 : 16));
            const __m256i x =
                _mm256_loadu_si256(reinterpret_cast<const __m256i*>(rp.xq + last * kQuantBlock));
            const __m256i d = _mm256_dpbusd_epi32(_mm256_setzero_si256(), u, x);
            const __m256 s8 = _mm256_set1_ps(_cvtsh_ss(rp.wscale[last]) * rp.xscale[last]);
            acc = _mm512_add_ps(acc,
                                _mm512_castps256_ps512(_mm256_mul_ps(_mm256_cvtepi32_ps(d), s8)));
        }
    }
    return _mm512_reduce_add_ps(acc) - float(offset) * _mm512_reduce_add_ps(corr);
}

// ---- AVX2 ------------------------------------------------------------------------------------

// Σ code·q of one block as 8 int32 lanes. vpmaddubsw saturates pairs at 16 bits: q4 codes
// (≤ 15) are safe as they are; q8 codes are turned back into signed values and multiplied as
// |w| · (q with w's sign), at most 2 · 127 · 127 per pair.
template <QuantFormat F>
QWEN3TTS_AVX2 inline __m256i block_dot_avx2(__m256i u, __m256i x) {
    const __m256i ones = _mm256_set1_epi16(1);
    if constexpr (F == QuantFormat::q8) {
        const __m256i w = _mm256_xor_si256(u, _mm256_set1_epi8(char(0x80)));
        return _mm256_madd_epi16(_mm256_maddubs_epi16(_mm256_abs_epi8(w), _mm256_sign_epi8(x, w)),
                                 ones);
    } else {
        return _mm256_madd_epi16(_mm256_maddubs_epi16(u, x), ones);
    }
}

template <QuantFormat F>
QWEN3TTS_AVX2 float dot_avx2(const RowPair& rp, int offset) {
    __m256 acc = _mm256_setzero_ps();
    float corr = 0;
    for (int64_t b = 0; b < rp.blocks; b += 2) {
        __m256i u[2];
        const int in_pair = b + 1 < rp.blocks ? 2 : 1;
        if constexpr (F == QuantFormat::q8) {
            for (int h = 0; h < in_pair; ++h)
                u[h] = _mm256_loadu_si256(
                    reinterpret_cast<const __m256i*>(rp.codes + (b + h) * kQuantBlock));
        } else if (in_pair == 1) {  // an odd last block: 16 bytes, weights j and 16 + j
            const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(rp.codes + b * 16));
            const __m128i nibble = _mm_set1_epi8(0x0f);
            u[0] = _mm256_set_m128i(_mm_and_si128(_mm_srli_epi16(v, 4), nibble),
                                    _mm_and_si128(v, nibble));
        } else {
            const __m256i v =
                _mm256_loadu_si256(reinterpret_cast<const __m256i*>(rp.codes + b * 16));
            const __m256i nibble = _mm256_set1_epi8(0x0f);
            u[0] = _mm256_and_si256(v, nibble);
            u[1] = _mm256_and_si256(_mm256_srli_epi16(v, 4), nibble);
        }
        for (int h = 0; h < in_pair; ++h) {
            const __m256i x =
                _mm256_loadu_si256(reinterpret_cast<const __m256i*>(rp.xq + (b + h) * kQuantBlock));
            const float ws = _cvtsh_ss(rp.wscale[b + h]);
            acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(block_dot_avx2<F>(u[h], x)),
                                  _mm256_set1_ps(ws * rp.xscale[b + h]), acc);
            if constexpr (F == QuantFormat::q4) corr += ws * rp.xsum[b + h];
        }
    }
    return hsum256(acc) - float(F == QuantFormat::q4 ? offset : 0) * corr;
}

// ---- Dispatch --------------------------------------------------------------------------------

template <QuantFormat F>
float dot(Kernel k, const RowPair& rp, int offset) {
    return k == Kernel::avx512_vnni ? dot_vnni<F>(rp, offset) : dot_avx2<F>(rp, offset);
}

void rows(Kernel k, const QuantizedActivations& x, const QuantizedWeights& w, const float* bias,
          float* y, int64_t r0, int64_t r1) {
    const int64_t blocks = w.blocks_per_row();
    const int offset = w.code_offset();
    // Weight row outer, activation rows inner: the row is read from memory once for all n.
    for (int64_t r = r0; r < r1; ++r) {
        for (int64_t i = 0; i < x.rows; ++i) {
            const RowPair rp{w.codes.data() + size_t(r) * w.row_code_bytes(),
                             w.scales.data() + r * blocks,
                             x.q.data() + i * x.cols,
                             x.scales.data() + i * blocks,
                             x.scaled_sums.data() + i * blocks,
                             blocks};
            const float v = w.format == QuantFormat::q8 ? dot<QuantFormat::q8>(k, rp, offset)
                                                        : dot<QuantFormat::q4>(k, rp, offset);
            y[i * w.rows + r] = v + (bias ? bias[r] : 0.0f);
        }
    }
}

}  // namespace

const char* linear_quant_cpu_kernel() {
    switch (active_kernel()) {
        case Kernel::avx512_vnni:
            return "avx512-vnni";
        case Kernel::avx2:
            return "avx2";
        default:
            return "generic";
    }
}

void linear_quant_cpu(ThreadPool* pool, const QuantizedActivations& x, const QuantizedWeights& w,
                      const float* bias, float* y) {
    QWEN3TTS_ASSERT(x.cols == w.cols);
    const Kernel k = active_kernel();  // here, not in the workers: it may throw
    if (k == Kernel::generic) {
        linear_quant_reference(x, w, bias, y);
        return;
    }
    auto body = [&](int64_t r0, int64_t r1) { rows(k, x, w, bias, y, r0, r1); };
    // Small layers are not worth waking the other threads for.
    if (pool && w.nbytes() * size_t(x.rows) >= (64u << 10))
        pool->parallel_for(w.rows, 16, body);
    else
        body(0, w.rows);
}

}  // namespace qwen3tts::backend
