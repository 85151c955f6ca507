#include "backend/quantized_weights.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>

#include "backend/cpu/quantize_cpu.hpp"
#include "core/error.hpp"
#include "core/mapped_files.hpp"

namespace qwen3tts::backend {

const char* quant_format_name(QuantFormat f) {
    return f == QuantFormat::q8 ? "q8" : "q4";
}

int QuantizedWeights::code(int64_t r, int64_t c) const {
    const int64_t b = c / kQuantBlock, j = c % kQuantBlock;
    const uint8_t* block = codes.data() + (r / kQuantLanes) * group_code_bytes() +
                           b * group_block_bytes() + (r % kQuantLanes) * 4;
    if (format == QuantFormat::q8) return block[j / 4 * 64 + j % 4];
    const uint8_t byte = block[j / 8 * 64 + j % 4];
    return j % 8 < 4 ? byte & 0xf : byte >> 4;
}

uint16_t QuantizedWeights::scale_f16(int64_t r, int64_t b) const {
    return scales[size_t(((r / kQuantLanes) * blocks_per_row() + b) * kQuantLanes +
                         r % kQuantLanes)];
}

float QuantizedWeights::value(int64_t r, int64_t c) const {
    return f16_to_f32(scale_f16(r, c / kQuantBlock)) * float(code(r, c) - code_offset());
}

QuantStep quant_step(QuantFormat format, float lo, float hi) {
    QuantStep s;
    // The value of largest magnitude (the positive one on a tie).
    const float extreme = hi >= -lo ? hi : lo;
    const float target = format == QuantFormat::q8 ? std::fabs(extreme) / 127.0f : extreme / -8.0f;
    // Codes are computed against the scale as stored (f16), so value() is what the kernels use.
    s.scale_f16 = f32_to_f16(target);
    const float scale = f16_to_f32(s.scale_f16);
    s.inverse = scale != 0.0f ? 1.0f / scale : 0.0f;
    s.min_q = format == QuantFormat::q8 ? -127 : -8;
    s.max_q = format == QuantFormat::q8 ? 127 : 7;
    s.offset = format == QuantFormat::q8 ? 128 : 8;
    return s;
}

QuantStep q4_candidate(int c, float extreme) {
    QuantStep s;
    s.min_q = -8, s.max_q = 7, s.offset = 8;
    s.scale_f16 = f32_to_f16(extreme * kQ4Factor[c]);
    const float scale = f16_to_f32(s.scale_f16);
    s.inverse = scale != 0.0f ? 1.0f / scale : 0.0f;
    return s;
}

float q4_block_dot(const float* w, const int* q) {
    float lane[16];
    for (int j = 0; j < 16; ++j)
        lane[j] = std::fma(w[j + 16], float(q[j + 16]), w[j] * float(q[j]));
    for (int h = 8; h >= 1; h /= 2)
        for (int j = 0; j < h; ++j) lane[j] += lane[j + h];
    return lane[0];
}

void throw_non_finite(const TensorView& w, int64_t row) {
    throw Error(ErrorCode::unsupported, "cannot quantize " + w.name + ": row " +
                                            std::to_string(row) + " has a non-finite weight");
}

void quantize_row_portable(const TensorView& w, int64_t r, QuantFormat format, uint8_t* codes,
                           uint16_t* scales) {
    const int64_t cols = w.dim(1);
    std::vector<float> row(static_cast<size_t>(cols));
    const size_t first = size_t(r * cols);
    for (int64_t c = 0; c < cols; ++c) {
        if (w.dtype == DType::f32) {
            row[size_t(c)] = static_cast<const float*>(w.data)[first + size_t(c)];
        } else {
            const uint16_t h = static_cast<const uint16_t*>(w.data)[first + size_t(c)];
            row[size_t(c)] = w.dtype == DType::bf16 ? bf16_to_f32(h) : f16_to_f32(h);
        }
    }
    for (int64_t b = 0; b < cols / kQuantBlock; ++b) {
        const float* x = row.data() + b * kQuantBlock;
        float lo = x[0], hi = x[0];
        bool finite = true;
        for (int64_t j = 0; j < kQuantBlock; ++j) {
            finite = finite && std::isfinite(x[j]);
            lo = std::min(lo, x[j]);
            hi = std::max(hi, x[j]);
        }
        if (!finite) throw_non_finite(w, r);
        if (format == QuantFormat::q8) {
            const QuantStep step = quant_step(format, lo, hi);
            scales[b] = step.scale_f16;
            for (int64_t j = 0; j < kQuantBlock; ++j)
                codes[b * kQuantBlock + j] = uint8_t(
                    std::clamp(int(std::lrint(x[j] * step.inverse)), step.min_q, step.max_q) +
                    step.offset);
            continue;
        }
        const float extreme = hi >= -lo ? hi : lo;
        int q[kQuantBlock], best[kQuantBlock];
        float best_gain = -1, best_wq = 0, best_qq = 0;
        for (int c = 0; c < kQ4Candidates; ++c) {
            const QuantStep step = q4_candidate(c, extreme);
            int qq = 0;
            for (int64_t j = 0; j < kQuantBlock; ++j) {
                q[j] = std::clamp(int(std::lrint(x[j] * step.inverse)), step.min_q, step.max_q);
                qq += q[j] * q[j];
            }
            const float wq = q4_block_dot(x, q), gain = q4_fit_gain(wq, float(qq));
            if (gain > best_gain) {
                best_gain = gain, best_wq = wq, best_qq = float(qq);
                std::copy(q, q + kQuantBlock, best);
            }
        }
        scales[b] = f32_to_f16(q4_fitted_scale(best_wq, best_qq));
        for (int64_t j = 0; j < kQuantBlock; ++j) codes[b * kQuantBlock + j] = uint8_t(best[j] + 8);
    }
}

namespace {

// Row r's codes (one per byte, offset included) and block scales into its lane of its group.
void store_row(const uint8_t* row_codes, const uint16_t* row_scales, int64_t r,
               QuantizedWeights& out) {
    const int64_t blocks = out.blocks_per_row(), lane = r % kQuantLanes;
    uint8_t* codes = out.codes.data() + (r / kQuantLanes) * out.group_code_bytes() + lane * 4;
    uint16_t* scales = out.scales.data() + (r / kQuantLanes) * blocks * kQuantLanes + lane;
    for (int64_t b = 0; b < blocks; ++b, codes += out.group_block_bytes()) {
        const uint8_t* u = row_codes + b * kQuantBlock;
        scales[b * kQuantLanes] = row_scales[b];
        if (out.format == QuantFormat::q8) {
            for (int t = 0; t < 8; ++t) std::memcpy(codes + t * 64, u + t * 4, 4);
            continue;
        }
        for (int t = 0; t < 4; ++t) {  // q4 codes are < 16: the shift stays within each byte
            uint32_t lo, hi;
            std::memcpy(&lo, u + t * 8, 4);
            std::memcpy(&hi, u + t * 8 + 4, 4);
            const uint32_t packed = lo | hi << 4;
            std::memcpy(codes + t * 64, &packed, 4);
        }
    }
}

// Rows [r0, r1) of `out` from `src`, whose row 0 is row `first` of out.
void quantize_rows(const TensorView& src, int64_t first, QuantizedWeights& out, int64_t r0,
                   int64_t r1) {
    // One code per byte and the row's scales, then interleaved into place.
    std::vector<uint8_t> codes(size_t(out.cols));
    std::vector<uint16_t> scales(size_t(out.blocks_per_row()));
    const bool simd = quantize_row_cpu_available();
    for (int64_t r = r0; r < r1; ++r) {
        if (simd)
            quantize_row_cpu(src, r - first, out.format, codes.data(), scales.data());
        else
            quantize_row_portable(src, r - first, out.format, codes.data(), scales.data());
        store_row(codes.data(), scales.data(), r, out);
    }
}

// Rows of w per read: about 256 KiB, so the buffer stays in cache; whole groups, so that each
// piece writes its own part of the result.
int64_t rows_per_read(const TensorView& w) {
    const int64_t rows = int64_t((size_t(256) << 10) / (size_t(w.dim(1)) * dtype_size(w.dtype)));
    return std::max<int64_t>(1, rows / kQuantLanes) * kQuantLanes;
}

// Rows [r0, r1) (at most rows_per_read) of a memory-mapped w are read with pread into a buffer
// of this thread (no page faults: core/mapped_files.hpp); w is read in place when not mapped.
void quantize_piece(const TensorView& w, QuantizedWeights& out, int64_t r0, int64_t r1) {
    const size_t row_bytes = size_t(out.cols) * dtype_size(w.dtype);
    // Kept for the thread's life (one read's size): a fresh buffer per piece was faulted in and
    // zeroed every time.
    thread_local std::vector<uint8_t> buffer;
    const size_t bytes = size_t(r1 - r0) * row_bytes;
    if (buffer.size() < bytes) buffer.resize(bytes);
    const auto* src = static_cast<const uint8_t*>(w.data) + size_t(r0) * row_bytes;
    if (!mapped_files::read(src, bytes, buffer.data())) {
        quantize_rows(w, 0, out, r0, r1);
        return;
    }
    try {
        quantize_rows(TensorView{w.name, w.dtype, {r1 - r0, out.cols}, buffer.data()}, r0, out, r0,
                      r1);
    } catch (const Error&) {
        quantize_rows(w, 0, out, r0, r1);  // rethrows naming the row of w
        throw;
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
    // Smaller than the tensor itself, whose size was checked when it was loaded.
    q.codes = HugeBuffer<uint8_t>(size_t(q.groups() * q.group_code_bytes()));
    q.scales = HugeBuffer<uint16_t>(size_t(q.groups() * q.blocks_per_row() * kQuantLanes));
    // Pieces are handed out as threads ask for them, so a thread that lost its core for a
    // while does not keep the others waiting at the end of the tensor.
    const int64_t piece = rows_per_read(w);
    std::atomic<int64_t> next{0};
    auto body = [&](int64_t, int64_t) {
        for (int64_t r0; (r0 = next.fetch_add(piece)) < q.rows;) {
            const int64_t r1 = std::min(r0 + piece, q.rows);
            const int64_t g0 = r0 / kQuantLanes, g1 = (r1 + kQuantLanes - 1) / kQuantLanes;
            // The piece's pages of the result in one call rather than a fault per page.
            detail::populate_for_write(q.codes.data() + g0 * q.group_code_bytes(),
                                       size_t((g1 - g0) * q.group_code_bytes()));
            detail::populate_for_write(
                q.scales.data() + g0 * q.blocks_per_row() * kQuantLanes,
                size_t((g1 - g0) * q.blocks_per_row() * kQuantLanes) * sizeof(uint16_t));
            quantize_piece(w, q, r0, r1);
            if (r1 == q.rows) {  // the last group's padding rows: zero codes, zero scales
                const std::vector<uint8_t> zero_codes(size_t(q.cols));
                const std::vector<uint16_t> zero_scales(size_t(q.blocks_per_row()));
                for (int64_t r = q.rows; r < g1 * kQuantLanes; ++r)
                    store_row(zero_codes.data(), zero_scales.data(), r, q);
            }
        }
    };
    if (pool)
        pool->parallel_for(pool->size(), 1, body);
    else
        body(0, 1);
    return q;
}

void QuantizedActivations::quantize(const float* x, int64_t n, int64_t n_cols) {
    QWEN3TTS_ASSERT(n_cols % kQuantBlock == 0);
    rows = n;
    cols = n_cols;
    const int64_t blocks = n * cols / kQuantBlock;
    q.resize(size_t(n * cols));
    scales.resize(size_t(blocks));
    sums.resize(size_t(blocks));
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
            scales[size_t(b)] = std::numeric_limits<float>::quiet_NaN();
            sums[size_t(b)] = 0;
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
        sums[size_t(b)] = sum;
    }
}

}  // namespace qwen3tts::backend
