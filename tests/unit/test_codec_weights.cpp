// The codec's loading helpers give a mapped tensor's pages back once they have converted or
// packed it: loading a layer grows the process by its packed copy, not by the checkpoint's
// bytes too (a speech tokenizer's decoder is ~200 MB in BF16, ~420 MB in F32). The packed
// weights equal those loaded from a private copy of the file.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "core/dtype.hpp"
#include "nn/codec_weights.hpp"
#include "nn/conv1d.hpp"
#include "support/test_support.hpp"
#include "weights/safetensors.hpp"
#include "weights/safetensors_writer.hpp"

namespace qwen3tts {
namespace {

using testing::resident_bytes;

constexpr size_t kMiB = size_t(1) << 20;

std::vector<uint16_t> random_bf16(size_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> d(0.0f, 0.05f);
    std::vector<uint16_t> v(n);
    for (auto& x : v) x = f32_to_bf16(d(rng));
    return v;
}

// A file of one 32 MiB bf16 weight [2048, 1024, 8] named "conv.weight" (with its bias), also
// readable as a [16384, 1024] matrix "lin.weight" of the same bytes' size.
std::string write_checkpoint() {
    const std::string path = testing::tmp_dir() + "/codec_weights.safetensors";
    const std::vector<uint16_t> conv = random_bf16(size_t(2048) * 1024 * 8, 1);
    const std::vector<uint16_t> lin = random_bf16(size_t(16384) * 1024, 2);
    const std::vector<uint16_t> bias = random_bf16(2048, 3);
    write_safetensors(path,
                      {{"conv.weight", DType::bf16, {2048, 1024, 8}, conv.data()},
                       {"conv.bias", DType::bf16, {2048}, bias.data()},
                       {"lin.weight", DType::bf16, {16384, 1024}, lin.data()}},
                      {});
    return path;
}

TEST(CodecWeights, LoadF32GivesTheMappedPagesBack) {
    const std::string path = write_checkpoint();
    const WeightMap mapped = WeightMap::open(path, "", LoadMode::mmap);
    const size_t before = resident_bytes();
    const std::vector<float> got = load_f32(mapped, "lin.weight", {16384, 1024});
    // The f32 copy is 64 MiB; the 32 MiB read from the mapping must not stay beside it (half of
    // it is the margin: sanitizers' shadow memory, allocator slack).
    EXPECT_LT(resident_bytes(), before + 64 * kMiB + 16 * kMiB);
    const WeightMap copy = WeightMap::open(path, "", LoadMode::copy);
    EXPECT_EQ(got, copy.get("lin.weight").to_f32());
}

TEST(CodecWeights, APackedConvAndLinearGiveTheMappedPagesBack) {
    const std::string path = write_checkpoint();
    const WeightMap mapped = WeightMap::open(path, "", LoadMode::mmap);
    size_t before = resident_bytes();
    CausalConv1d conv;
    conv.load(mapped, "conv", 1024, 2048, 8, 1);
    // Packed f32 panels: 64 MiB (the margin as above).
    EXPECT_LT(resident_bytes(), before + 64 * kMiB + 16 * kMiB) << "conv";
    before = resident_bytes();
    const backend::ConvWeights lin = load_linear(mapped, "lin.weight", 16384, 1024);
    EXPECT_LT(resident_bytes(), before + 64 * kMiB + 16 * kMiB) << "linear";

    // The same layers as from a private copy of the file.
    const WeightMap copy = WeightMap::open(path, "", LoadMode::copy);
    CausalConv1d conv_copy;
    conv_copy.load(copy, "conv", 1024, 2048, 8, 1);
    const backend::ConvWeights lin_copy = load_linear(copy, "lin.weight", 16384, 1024);
    ASSERT_EQ(lin.panels.size(), lin_copy.panels.size());
    EXPECT_EQ(0, std::memcmp(lin.panels.data(), lin_copy.panels.data(),
                             lin.panels.size() * sizeof(float)));
    const int64_t rows = 4, history = conv.history();
    const std::vector<uint16_t> input = random_bf16(size_t((history + rows) * 1024), 4);
    auto run = [&](const CausalConv1d& c) {
        std::vector<float> x(input.size()), state(c.state_floats(), 0.0f);
        for (size_t i = 0; i < x.size(); ++i) x[i] = bf16_to_f32(input[i]);
        std::vector<float> y(size_t(rows * 2048));
        c.forward(x.data() + history * 1024, 1024, rows, state.data(), y.data(), 2048, false, {});
        return y;
    };
    EXPECT_EQ(run(conv), run(conv_copy));
}

}  // namespace
}  // namespace qwen3tts
