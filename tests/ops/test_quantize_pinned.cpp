// The quantized bytes are pinned: codes and scales of q8 and q4 over weights of a trained
// model's spread (random, but from a generator written here, so the same on every platform)
// plus the edge cases (all-zero and -0 blocks, one huge outlier, scales beyond the f16 range,
// denormal weights, ties between +m and -m, constant blocks), hashed and compared with the
// hashes of the quantizer as it was when the SIMD search was rewritten (commit d69c2cf), at
// every SIMD level and thread count. A change to the rule or to a kernel's rounding order shows
// here. Non-finite weights are refused at every level, naming the tensor and row.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "backend/quantized_weights.hpp"
#include "core/dtype.hpp"
#include "core/thread_pool.hpp"
#include "ops/isa_levels.hpp"
#include "support/test_support.hpp"

namespace qwen3tts {
namespace {

using backend::QuantFormat;

// splitmix64: the same sequence everywhere (std:: distributions are not).
struct Generator {
    uint64_t state;
    uint64_t next() {
        uint64_t z = (state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    float uniform() { return float(next() >> 40) * (1.0f / 16777216.0f); }  // [0, 1)
    // Near-Gaussian (a sum of four uniforms), standard deviation sigma.
    float normal(float sigma) {
        const float s = uniform() + uniform() + uniform() + uniform() - 2.0f;
        return s * sigma * 1.7320508f;
    }
};

// rows × cols weights with a trained model's spread (σ 0.02, some rows with heavy tails), and
// the edge cases in the first rows.
std::vector<float> pinned_weights(int64_t rows, int64_t cols, uint64_t seed) {
    Generator g{seed};
    std::vector<float> w(size_t(rows * cols));
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c) {
            float x = g.normal(0.02f * float(1 + r % 5));
            if (r % 3 == 1 && g.uniform() < 0.02f) x *= 8.0f;
            w[size_t(r * cols + c)] = x;
        }
    const int64_t blocks = cols / 32;
    auto block = [&](int64_t r, int64_t b) { return w.data() + r * cols + (b % blocks) * 32; };
    std::fill_n(block(0, 0), 32, 0.0f);   // all zero
    std::fill_n(block(0, 1), 32, -0.0f);  // all -0
    block(0, 2)[5] = 40.0f;               // one huge outlier
    block(0, 3)[31] = -3.0e38f;           // every step beyond the f16 range
    block(0, 4)[0] = 7.0e4f;              // q8's step in range, q4's not
    for (int j = 0; j < 32; ++j) block(1, 0)[j] = 1.0e-39f * float(j - 16);    // denormals
    for (int j = 0; j < 32; ++j) block(1, 1)[j] = 3.0e-6f * float(j % 7 - 3);  // f16 subnormal
    block(1, 2)[3] = 0.5f, block(1, 2)[9] = -0.5f;                             // a tie: +m wins
    block(1, 3)[30] = -0.5f, block(1, 3)[2] = 0.5f;      // the same, other order
    std::fill_n(block(1, 4), 32, 0.03125f);              // constant
    std::fill_n(block(1, 5), 32, -0.0117f);              // constant, negative
    block(2, 0)[0] = -0.3f;                              // a negative extreme
    block(2, 1)[16] = 0.0f, block(2, 1)[17] = 1.0e-30f;  // a tiny value beside normal ones
    return w;
}

// FNV-1a over the codes, then the scales, as the bytes of the layout the hashes were taken in
// (row after row; q8 one code per byte; q4 two blocks per 32 bytes, byte j holding weights j
// and 32 + j, an odd last block 16 bytes holding j and 16 + j), rebuilt from code() and
// scale_f16() so that the pin holds whatever the kernels' storage order.
uint64_t hash_of(const backend::QuantizedWeights& q) {
    uint64_t h = 0xcbf29ce484222325ull;
    auto add = [&](uint8_t byte) { h = (h ^ byte) * 0x100000001b3ull; };
    for (int64_t r = 0; r < q.rows; ++r) {
        if (q.format == QuantFormat::q8) {
            for (int64_t c = 0; c < q.cols; ++c) add(uint8_t(q.code(r, c)));
            continue;
        }
        for (int64_t c = 0; c < q.cols; c += 64) {
            const int64_t half = c + 64 <= q.cols ? 32 : 16;
            for (int64_t j = 0; j < half; ++j)
                add(uint8_t(q.code(r, c + j) | q.code(r, c + half + j) << 4));
        }
    }
    for (int64_t r = 0; r < q.rows; ++r)
        for (int64_t b = 0; b < q.blocks_per_row(); ++b) {
            const uint16_t s = q.scale_f16(r, b);
            add(uint8_t(s & 0xff));
            add(uint8_t(s >> 8));
        }
    return h;
}

struct Pinned {
    DType dtype;
    int64_t rows, cols;
    QuantFormat format;
    uint64_t hash;
};

// Model widths (1024, 3072) and odd ones (3 blocks; 33 blocks: an odd last block of a q4 row
// and groups of blocks that do not divide the row).
const Pinned kPinned[] = {
    {DType::bf16, 40, 1024, QuantFormat::q8, 15910813103705519548ull},
    {DType::bf16, 40, 1024, QuantFormat::q4, 7650221898954641100ull},
    {DType::bf16, 256, 3072, QuantFormat::q8, 7696829561944301372ull},
    {DType::bf16, 256, 3072, QuantFormat::q4, 13095132664858334141ull},
    {DType::bf16, 24, 96, QuantFormat::q8, 16345531865484184786ull},
    {DType::bf16, 24, 96, QuantFormat::q4, 16555939318557141888ull},
    {DType::bf16, 12, 1056, QuantFormat::q8, 16604287029558989896ull},
    {DType::bf16, 12, 1056, QuantFormat::q4, 15706726321830507277ull},
    {DType::f16, 12, 1056, QuantFormat::q8, 2434747515268791192ull},
    {DType::f16, 12, 1056, QuantFormat::q4, 12892226385009616840ull},
    {DType::f32, 12, 1056, QuantFormat::q8, 16843692033403623599ull},
    {DType::f32, 12, 1056, QuantFormat::q4, 5057397523211200514ull},
};

// The weights in the case's dtype (f16 turns the out-of-range edge cases into ±inf: replaced
// by its largest finite value, as a checkpoint stored in f16 would hold them).
std::vector<uint8_t> stored(const Pinned& p) {
    const std::vector<float> w = pinned_weights(p.rows, p.cols, uint64_t(p.cols));
    std::vector<uint8_t> bytes(w.size() * dtype_size(p.dtype));
    for (size_t i = 0; i < w.size(); ++i) {
        if (p.dtype == DType::f32) {
            std::memcpy(bytes.data() + 4 * i, &w[i], 4);
            continue;
        }
        uint16_t h = p.dtype == DType::bf16 ? f32_to_bf16(w[i]) : f32_to_f16(w[i]);
        if (p.dtype == DType::f16 && (h & 0x7c00) == 0x7c00) h = uint16_t((h & 0x8000) | 0x7bff);
        std::memcpy(bytes.data() + 2 * i, &h, 2);
    }
    return bytes;
}

class QuantizePinned : public testing_isa::AtLevel {};

TEST_P(QuantizePinned, BytesEqualThePinnedHashes) {
    ThreadPool pool(2);
    for (const Pinned& p : kPinned) {
        const std::vector<uint8_t> bytes = stored(p);
        const TensorView v{"w", p.dtype, {p.rows, p.cols}, bytes.data()};
        const std::string what = std::string(dtype_name(p.dtype)) + " " + std::to_string(p.rows) +
                                 "x" + std::to_string(p.cols) + " " +
                                 backend::quant_format_name(p.format);
        EXPECT_EQ(hash_of(backend::quantize_weights(v, p.format, nullptr)), p.hash) << what;
        EXPECT_EQ(hash_of(backend::quantize_weights(v, p.format, &pool)), p.hash) << what;
    }
}

TEST_P(QuantizePinned, NonFiniteWeightsAreRefusedNamingTheRow) {
    const float bad[] = {std::numeric_limits<float>::quiet_NaN(),
                         std::numeric_limits<float>::infinity(),
                         -std::numeric_limits<float>::infinity()};
    const int64_t rows = 6, cols = 1056;
    ThreadPool pool(2);
    for (const float x : bad)
        for (const int64_t at : {int64_t(0), int64_t(17), int64_t(cols - 1), int64_t(600)})
            for (QuantFormat f : {QuantFormat::q8, QuantFormat::q4}) {
                std::vector<float> w = pinned_weights(rows, cols, 3);
                w[size_t(4 * cols + at)] = x;
                std::vector<uint16_t> bf16(w.size());
                for (size_t i = 0; i < w.size(); ++i) bf16[i] = f32_to_bf16(w[i]);
                const TensorView v{"bad.weight", DType::bf16, {rows, cols}, bf16.data()};
                for (ThreadPool* p : {static_cast<ThreadPool*>(nullptr), &pool})
                    EXPECT_EQ(testing::error_of([&] { backend::quantize_weights(v, f, p); }),
                              "cannot quantize bad.weight: row 4 has a non-finite weight")
                        << x << " at " << at;
            }
}

INSTANTIATE_TEST_SUITE_P(Isa, QuantizePinned, testing_isa::kAllLevels,
                         testing_isa::level_test_name);

}  // namespace
}  // namespace qwen3tts
