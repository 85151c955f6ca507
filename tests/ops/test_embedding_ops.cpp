// Embedding lookups: every stored dtype gives exactly the table's values (TensorView::at_f32),
// from data at any alignment (a mapped checkpoint promises none), written or added; an id
// outside the table is an error naming it.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "backend/ops.hpp"
#include "core/dtype.hpp"
#include "core/error.hpp"

namespace qwen3tts {
namespace {

// A [rows, d] table of `dtype` stored one byte past an aligned address.
struct Table {
    std::vector<uint8_t> bytes;
    TensorView view;
    Table(DType dtype, int64_t rows, int64_t d, uint32_t seed) {
        std::mt19937 rng(seed);
        std::normal_distribution<float> dist(0.0f, 1.0f);
        const size_t size = dtype_size(dtype);
        bytes.resize(size_t(rows * d) * size + 1);
        for (size_t i = 0; i < size_t(rows * d); ++i) {
            const float v = dist(rng);
            uint16_t h = dtype == DType::bf16 ? f32_to_bf16(v) : f32_to_f16(v);
            std::memcpy(bytes.data() + 1 + i * size,
                        dtype == DType::f32 ? static_cast<const void*>(&v) : &h, size);
        }
        view = TensorView{"embed", dtype, {rows, d}, bytes.data() + 1};
    }
};

TEST(Embedding, RowsAreTheTableValuesForEveryDtypeAndAlignment) {
    const int64_t rows = 11, d = 37;
    for (const DType dtype : {DType::bf16, DType::f16, DType::f32}) {
        const Table t(dtype, rows, d, 3);
        const int32_t ids[3] = {10, 0, 4};
        std::vector<float> out(size_t(3 * d)), sum(size_t(d), 0.5f);
        backend::embedding_rows(t.view, ids, 3, out.data());
        backend::embedding_add_row(t.view, 7, sum.data());
        for (int64_t j = 0; j < d; ++j) {
            for (int i = 0; i < 3; ++i)
                ASSERT_EQ(out[size_t(i * d + j)], t.view.at_f32(ids[i] * d + j))
                    << dtype_name(dtype) << " id " << ids[i] << " column " << j;
            ASSERT_EQ(sum[size_t(j)], 0.5f + t.view.at_f32(7 * d + j))
                << dtype_name(dtype) << " column " << j;
        }
    }
}

TEST(Embedding, AnIdOutsideTheTableNamesIt) {
    const Table t(DType::bf16, 4, 8, 5);
    std::vector<float> out(8);
    const int32_t bad[1] = {4};
    try {
        backend::embedding_rows(t.view, bad, 1, out.data());
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("id 4 is outside embedding embed"), std::string::npos)
            << e.what();
    }
    EXPECT_THROW(backend::embedding_add_row(t.view, -1, out.data()), Error);
}

// The range widening under the lookups refuses a range past the tensor instead of reading on.
TEST(Embedding, AWidenedRangePastTheTensorIsAnError) {
    const Table t(DType::f32, 4, 8, 6);
    std::vector<float> out(16);
    t.view.to_f32(24, 8, out.data());  // the last row: fine
    EXPECT_EQ(out[0], t.view.at_f32(24));
    EXPECT_THROW(t.view.to_f32(25, 8, out.data()), Error);
    EXPECT_THROW(t.view.to_f32(-1, 2, out.data()), Error);
}

}  // namespace
}  // namespace qwen3tts
