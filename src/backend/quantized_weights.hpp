// Linear-layer weights quantized once at load from the checkpoint's own float weights (no
// conversion step, no extra files). Both formats cut each weight row into blocks of 32 with
// one f16 scale per block:
//   q8  code = round(w / scale) + 128 in [1, 255], scale = max|w| / 127;
//   q4  code = round(w / s) + 8 in [0, 15] for the best of a few candidate steps s (the
//       block's value of largest magnitude m over -8, that step shrunk so that m clips, and
//       m / 7), and scale = the least-squares scale of those codes (Σ w·q / Σ q²): the
//       candidate whose codes fit the block with the smallest squared error is kept.
// Codes are unsigned so the integer kernels multiply them with signed int8 activations
// directly (AVX-512 VNNI vpdpbusd); the offset (128 or 8) is removed once per block through
// the activations' block sums.
//
// Storage order, made for those kernels: rows are interleaved in groups of 16 (the last group
// padded with zero codes and scales), so that one 64-byte vector holds 4 columns' codes for 16
// rows, one per 32-bit lane, and one vpdpbusd against 4 activation bytes broadcast to every lane
// adds 4 products to each of the 16 rows' sums: no horizontal sums, no shuffles, the f32 work
// once per block and 16 rows. A group stores its blocks one after the other; a block is chunks
// of 64 bytes, lane i (bytes 4i to 4i + 3) of chunk t holding row i's codes of the block's
//   q8  columns 4t to 4t + 3 (8 chunks),
//   q4  columns 8t to 8t + 3 in the low nibbles and 8t + 4 to 8t + 7 in the high ones
//       (4 chunks).
// Scales: for each group and block, the 16 rows' f16 scales.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/huge_buffer.hpp"
#include "core/tensor_view.hpp"
#include "core/thread_pool.hpp"

namespace qwen3tts::backend {

enum class QuantFormat { q8, q4 };

const char* quant_format_name(QuantFormat f);  // "q8", "q4"

constexpr int64_t kQuantBlock = 32;
constexpr int64_t kQuantLanes = 16;  // rows per interleaved group

struct QuantizedWeights {
    std::string name;  // the checkpoint tensor it was made from
    QuantFormat format = QuantFormat::q8;
    int64_t rows = 0, cols = 0;   // cols is a multiple of kQuantBlock
    HugeBuffer<uint8_t> codes;    // groups() × group_code_bytes()
    HugeBuffer<uint16_t> scales;  // f16, groups() × blocks_per_row() × kQuantLanes

    int64_t blocks_per_row() const { return cols / kQuantBlock; }
    int64_t groups() const { return (rows + kQuantLanes - 1) / kQuantLanes; }
    // One row's codes of one block: 32 bytes (q8) or 16 (q4).
    int64_t lane_block_bytes() const { return format == QuantFormat::q8 ? 32 : 16; }
    int64_t group_block_bytes() const { return kQuantLanes * lane_block_bytes(); }
    int64_t group_code_bytes() const { return blocks_per_row() * group_block_bytes(); }
    int code_offset() const { return format == QuantFormat::q8 ? 128 : 8; }
    size_t nbytes() const { return codes.size() + scales.size() * sizeof(uint16_t); }
    // The unsigned code of weight (r, c), offset included.
    int code(int64_t r, int64_t c) const;
    // The f16 scale of block b of row r.
    uint16_t scale_f16(int64_t r, int64_t b) const;
    // The weight (r, c) as the quantized matrix represents it: scale × (code - offset).
    float value(int64_t r, int64_t c) const;
};

// How one block is quantized, from its smallest and largest weight: code = clamp(round-to-
// nearest-even(w · inverse), min_q, max_q) + offset. One rule for the portable and the SIMD
// quantizers, so that they give the same codes. q8 takes this step; q4 tries kQ4Candidates.
struct QuantStep {
    uint16_t scale_f16 = 0;
    float inverse = 0;  // 1 / the f16 scale (0 for an all-zero block)
    int min_q = 0, max_q = 0, offset = 0;
};
QuantStep quant_step(QuantFormat format, float lo, float hi);

// q4's candidate step `c` (0 ≤ c < kQ4Candidates; 0 is quant_step's) for a block whose value
// of largest magnitude (the positive one on a tie) is `extreme`.
// The steps are extreme · kQ4Factor[c]: shrinking the step clips the extreme but resolves the
// rest of the block more finely; 1/7 puts the extreme on the other end, leaving -8 to the
// opposite side.
constexpr int kQ4Candidates = 4;
constexpr float kQ4Factor[kQ4Candidates] = {-1.0f / 8, -0.93f / 8, -0.86f / 8, 1.0f / 7};
QuantStep q4_candidate(int c, float extreme);
// Codes q of a block (without the offset) fit it by the scale Σ w·q / Σ q² with the squared
// error Σ w² - (Σ w·q)² / Σ q²: the gain (Σ w·q)² / Σ q² (0 when every code is 0) ranks the
// candidates, the first largest wins. The float sum Σ w·q is taken in one order everywhere:
// lane j < 16 is fma(w[j+16], q[j+16], w[j]·q[j]), then lanes j and j+h are added for h = 8,
// 4, 2, 1 (q4_block_dot). Σ q² is an exact integer.
float q4_block_dot(const float* w, const int* q);
inline float q4_fit_gain(float wq, float qq) {
    return qq > 0 ? wq * wq / qq : 0.0f;
}
inline float q4_fitted_scale(float wq, float qq) {  // before its rounding to f16
    return qq > 0 ? wq / qq : 0.0f;
}
[[noreturn]] void throw_non_finite(const TensorView& w, int64_t row);

// Row r of w (checked by quantize_weights) → one code per byte (offset included) and the f16
// block scales: the plain loops.
void quantize_row_portable(const TensorView& w, int64_t r, QuantFormat format, uint8_t* codes,
                           uint16_t* scales);

// w: [rows, cols] f32/f16/bf16 with cols a multiple of 32 (Error(unsupported) naming the
// tensor otherwise, and for non-finite weights). Rows are split over the pool's threads.
QuantizedWeights quantize_weights(const TensorView& w, QuantFormat format, ThreadPool* pool);

// Activations quantized per row and block of 32 for the integer kernels: q = round(x / scale)
// in [-127, 127], scale = max|x| / 127 (0 for an all-zero block).
struct QuantizedActivations {
    int64_t rows = 0, cols = 0;
    std::vector<int8_t> q;                                   // rows × cols
    std::vector<float> scales;                               // rows × cols / 32
    std::vector<int32_t> sums;                               // rows × cols / 32: Σ q of the block
    void quantize(const float* x, int64_t n, int64_t cols);  // reuses the buffers
};

}  // namespace qwen3tts::backend
