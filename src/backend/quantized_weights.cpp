#include "backend/quantized_weights.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.hpp"

namespace qwen3tts::backend {

const char* quant_format_name(QuantFormat f) {
    return f == QuantFormat::q8 ? "q8" : "q4";
}

int QuantizedWeights::code(int64_t r, int64_t c) const {
    const uint8_t* row = codes.data() + size_t(r) * row_code_bytes();
    if (format == QuantFormat::q8) return row[c];
    const int64_t pair = c / (2 * kQuantBlock), j = c % (2 * kQuantBlock);
    if ((pair + 1) * 2 * kQuantBlock > cols) {  // the odd last block
        const uint8_t byte = row[pair * kQuantBlock + j % (kQuantBlock / 2)];
        return j < kQuantBlock / 2 ? byte & 0xf : byte >> 4;
    }
    const uint8_t byte = row[pair * kQuantBlock + j % kQuantBlock];
    return j < kQuantBlock ? byte & 0xf : byte >> 4;
}

float QuantizedWeights::value(int64_t r, int64_t c) const {
    const float scale = f16_to_f32(scales[size_t(r * blocks_per_row() + c / kQuantBlock)]);
    return scale * float(code(r, c) - code_offset());
}

namespace {

// One block of 32 weights → its f16 scale and unsigned codes (q8: one per byte; q4: 32 codes
// in [0, 15], packed by the caller).
uint16_t quantize_block(const float* w, QuantFormat format, uint8_t* codes) {
    float extreme = 0;  // the value of largest magnitude
    for (int64_t j = 0; j < kQuantBlock; ++j)
        if (std::fabs(w[j]) > std::fabs(extreme)) extreme = w[j];
    const float target = format == QuantFormat::q8 ? std::fabs(extreme) / 127.0f : extreme / -8.0f;
    // Codes are computed against the scale as stored (f16), so value() is what the kernels use.
    const uint16_t scale_f16 = f32_to_f16(target);
    const float scale = f16_to_f32(scale_f16);
    const float inv = scale != 0.0f ? 1.0f / scale : 0.0f;
    const int lo = format == QuantFormat::q8 ? -127 : -8, hi = format == QuantFormat::q8 ? 127 : 7;
    const int offset = format == QuantFormat::q8 ? 128 : 8;
    for (int64_t j = 0; j < kQuantBlock; ++j) {
        const int q = std::clamp(int(std::lrint(w[j] * inv)), lo, hi);
        codes[j] = uint8_t(q + offset);
    }
    return scale_f16;
}

// Row r of a float matrix as f32 (the loop per dtype, not at_f32 per element: this runs over
// every weight of the model at load).
void widen_row(const TensorView& w, int64_t r, float* out) {
    const int64_t cols = w.dim(1);
    const size_t first = size_t(r * cols);
    if (w.dtype == DType::f32) {
        std::copy_n(static_cast<const float*>(w.data) + first, cols, out);
        return;
    }
    const uint16_t* h = static_cast<const uint16_t*>(w.data) + first;
    for (int64_t c = 0; c < cols; ++c)
        out[c] = w.dtype == DType::bf16 ? bf16_to_f32(h[c]) : f16_to_f32(h[c]);
}

void quantize_rows(const TensorView& w, QuantizedWeights& out, int64_t r0, int64_t r1) {
    const int64_t cols = out.cols, blocks = out.blocks_per_row();
    std::vector<float> row(static_cast<size_t>(cols));
    uint8_t block_codes[2][kQuantBlock];
    for (int64_t r = r0; r < r1; ++r) {
        widen_row(w, r, row.data());
        for (float v : row)
            if (!std::isfinite(v))
                throw Error(ErrorCode::unsupported, "cannot quantize " + w.name + ": row " +
                                                        std::to_string(r) +
                                                        " has a non-finite weight");
        uint8_t* codes = out.codes.data() + size_t(r) * out.row_code_bytes();
        uint16_t* scales = out.scales.data() + size_t(r * blocks);
        for (int64_t b = 0; b < blocks; b += 2) {
            const int in_pair = b + 1 < blocks ? 2 : 1;
            for (int h = 0; h < in_pair; ++h)
                scales[b + h] =
                    quantize_block(row.data() + (b + h) * kQuantBlock, out.format, block_codes[h]);
            if (out.format == QuantFormat::q8) {
                for (int h = 0; h < in_pair; ++h)
                    std::copy_n(block_codes[h], kQuantBlock, codes + (b + h) * kQuantBlock);
            } else if (in_pair == 2) {
                uint8_t* pair = codes + (b / 2) * kQuantBlock;
                for (int64_t j = 0; j < kQuantBlock; ++j)
                    pair[j] = uint8_t(block_codes[0][j] | (block_codes[1][j] << 4));
            } else {  // an odd last block: 16 bytes, weights j and 16 + j
                uint8_t* last = codes + (b / 2) * kQuantBlock;
                for (int64_t j = 0; j < kQuantBlock / 2; ++j)
                    last[j] = uint8_t(block_codes[0][j] | (block_codes[0][j + 16] << 4));
            }
        }
    }
}

}  // namespace

QuantizedWeights quantize_weights(const TensorView& w, QuantFormat format, ThreadPool* pool) {
    if (w.shape.size() != 2 || w.dim(1) % kQuantBlock != 0 ||
        !(w.dtype == DType::f32 || w.dtype == DType::f16 || w.dtype == DType::bf16))
        throw Error(ErrorCode::unsupported,
                    std::string("cannot quantize ") + w.name + " to " + quant_format_name(format) +
                        ": expected a 2-D float matrix with a multiple of 32 columns, got " +
                        dtype_name(w.dtype) + " " + w.shape_str());
    QuantizedWeights q;
    q.name = w.name;
    q.format = format;
    q.rows = w.dim(0);
    q.cols = w.dim(1);
    q.codes.resize(size_t(q.rows) * q.row_code_bytes());
    q.scales.resize(size_t(q.rows * q.blocks_per_row()));
    auto body = [&](int64_t r0, int64_t r1) { quantize_rows(w, q, r0, r1); };
    if (pool)
        pool->parallel_for(q.rows, 16, body);
    else
        body(0, q.rows);
    return q;
}

void QuantizedActivations::quantize(const float* x, int64_t n, int64_t n_cols) {
    QWEN3TTS_ASSERT(n_cols % kQuantBlock == 0);
    rows = n;
    cols = n_cols;
    const int64_t blocks = n * cols / kQuantBlock;
    q.resize(size_t(n * cols));
    scales.resize(size_t(blocks));
    scaled_sums.resize(size_t(blocks));
    for (int64_t b = 0; b < blocks; ++b) {
        const float* xb = x + b * kQuantBlock;
        int8_t* qb = q.data() + b * kQuantBlock;
        float max_abs = 0;
        bool finite = true;
        for (int64_t j = 0; j < kQuantBlock; ++j) {
            finite = finite && std::isfinite(xb[j]);
            max_abs = std::max(max_abs, std::fabs(xb[j]));
        }
        if (!finite) {
            // The block's scale is NaN, so the outputs it reaches are NaN (as in float
            // arithmetic), never silently finite.
            std::fill_n(qb, kQuantBlock, int8_t(0));
            scales[size_t(b)] = scaled_sums[size_t(b)] = std::numeric_limits<float>::quiet_NaN();
            continue;
        }
        const float scale = max_abs / 127.0f;
        const float inv = max_abs > 0 ? 127.0f / max_abs : 0.0f;
        int sum = 0;
        for (int64_t j = 0; j < kQuantBlock; ++j) {
            qb[j] = int8_t(std::clamp(int(std::lrint(xb[j] * inv)), -127, 127));
            sum += qb[j];
        }
        scales[size_t(b)] = scale;
        scaled_sums[size_t(b)] = scale * float(sum);
    }
}

}  // namespace qwen3tts::backend
