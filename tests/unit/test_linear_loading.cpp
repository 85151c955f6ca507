// load_linear: a float linear read through a memory mapping is copied into memory of its own
// (huge pages; the decoding loop streams it every frame), byte for byte, without faulting
// the mapping's pages in, unless copies are declined; a tensor of a private (LoadMode::copy)
// checkpoint is used in place.
#include <gtest/gtest.h>

#include <cstring>

#include "core/dtype.hpp"
#include "core/thread_pool.hpp"
#include "nn/linear_loading.hpp"
#include "support/test_support.hpp"
#include "weights/safetensors.hpp"
#include "weights/safetensors_writer.hpp"

namespace qwen3tts {
namespace {

using testing::resident_bytes;

// 2-D bf16 weights of rows × 1024 with distinct values; rows chosen so the size is not a
// whole number of the copy's 2 MiB pieces.
std::string write_weights(const std::string& name, int64_t rows, std::vector<uint16_t>& data) {
    const std::string path = testing::tmp_dir() + "/" + name + ".safetensors";
    data.resize(size_t(rows * 1024));
    for (size_t i = 0; i < data.size(); ++i)
        data[i] = f32_to_bf16(float(int(i % 4093) - 2046) / 64.0f);
    write_safetensors(path, {{"w", DType::bf16, {rows, 1024}, data.data()}}, {});
    return path;
}

TEST(LoadLinear, AMappedTensorIsCopiedByteForByteWithoutFaultingItIn) {
    std::vector<uint16_t> data;
    const std::string path = write_weights("load_linear_mapped", 9000, data);  // ~17.6 MiB
    const WeightMap w = WeightMap::open(path, "", LoadMode::mmap);
    const TensorView& stored = w.get("w");
    ASSERT_TRUE(w.is_mapped(stored));
    const size_t bytes = data.size() * 2;
    for (ThreadPool* pool : {static_cast<ThreadPool*>(nullptr), new ThreadPool(2)}) {
        const size_t before = resident_bytes();
        const backend::LinearWeights got = load_linear(w, stored, std::nullopt, pool);
        // The copy is read with pread: the mapping's pages do not come into the process too.
        EXPECT_LT(resident_bytes(), before + bytes * 3 / 2) << "the mapped pages came in";
        EXPECT_EQ(got.quantized(), nullptr);
        EXPECT_NE(got.view().data, stored.data) << "still reads the mapping";
        EXPECT_FALSE(w.is_mapped(got.view()));
        EXPECT_EQ(got.view().dtype, DType::bf16);
        EXPECT_EQ(got.view().shape, stored.shape);
        EXPECT_EQ(got.nbytes(), bytes);
        EXPECT_EQ(0, std::memcmp(got.view().data, data.data(), bytes));
        delete pool;
    }
}

TEST(LoadLinear, WithoutCopiesAMappedTensorIsReadInPlace) {
    std::vector<uint16_t> data;
    const std::string path = write_weights("load_linear_in_place", 9000, data);  // ~17.6 MiB
    const WeightMap w = WeightMap::open(path, "", LoadMode::mmap);
    const TensorView& stored = w.get("w");
    const size_t before = resident_bytes();
    const backend::LinearWeights got = load_linear(w, stored, std::nullopt, nullptr, false);
    EXPECT_EQ(got.view().data, stored.data);
    EXPECT_TRUE(w.is_mapped(got.view()));
    EXPECT_LT(resident_bytes(), before + data.size()) << "the weights were read at load";
    EXPECT_EQ(0, std::memcmp(got.view().data, data.data(), data.size() * 2));
}

TEST(LoadLinear, APrivateCheckpointsTensorIsUsedInPlace) {
    std::vector<uint16_t> data;
    const std::string path = write_weights("load_linear_private", 64, data);
    const WeightMap w = WeightMap::open(path, "", LoadMode::copy);
    const TensorView& stored = w.get("w");
    EXPECT_FALSE(w.is_mapped(stored));
    const backend::LinearWeights got = load_linear(w, stored, std::nullopt, nullptr);
    EXPECT_EQ(got.view().data, stored.data);
}

TEST(LoadLinear, QuantizedWeightsComeFromTheStoredTensor) {
    std::vector<uint16_t> data;
    const std::string path = write_weights("load_linear_quant", 64, data);
    const WeightMap w = WeightMap::open(path, "", LoadMode::mmap);
    const backend::LinearWeights got =
        load_linear(w, w.get("w"), backend::QuantFormat::q8, nullptr);
    ASSERT_NE(got.quantized(), nullptr);
    EXPECT_EQ(got.quantized()->rows, 64);
    EXPECT_EQ(got.view().data, w.get("w").data);
}

}  // namespace
}  // namespace qwen3tts
