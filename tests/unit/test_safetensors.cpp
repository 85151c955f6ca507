// The safetensors reader and WeightMap: values, dtypes, sharded index, and one clear error per
// kind of broken file.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <functional>

#include "backend/quantized_weights.hpp"
#include "core/dtype.hpp"
#include "core/error.hpp"
#include "support/test_support.hpp"
#include "weights/safetensors.hpp"
#include "weights/safetensors_writer.hpp"

namespace qwen3tts {
namespace {

using testing::error_of;

std::string tmp(const std::string& name) {
    return testing::tmp_dir() + "/st_" + name;
}

void write_raw(const std::string& path, const std::string& header, const std::string& data) {
    std::ofstream out(path, std::ios::binary);
    const uint64_t n = header.size();
    out.write(reinterpret_cast<const char*>(&n), 8);
    out << header << data;
}

std::string f32_bytes(std::initializer_list<float> v) {
    return std::string(reinterpret_cast<const char*>(std::data(v)), v.size() * sizeof(float));
}

TEST(Safetensors, ReadsValuesOfEveryFloatDtype) {
    const uint16_t bf[2] = {f32_to_bf16(1.5f), f32_to_bf16(-3.0f)};
    const uint16_t hf[2] = {0x3c00, 0xc000};  // 1, -2
    const std::string data = f32_bytes({0.25f, 2.0f, 4.0f}) +
                             std::string(reinterpret_cast<const char*>(bf), 4) +
                             std::string(reinterpret_cast<const char*>(hf), 4);
    write_raw(tmp("ok.safetensors"),
              R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,12]},)"
              R"("b":{"dtype":"BF16","shape":[2,1],"data_offsets":[12,16]},)"
              R"("c":{"dtype":"F16","shape":[2],"data_offsets":[16,20]},)"
              R"("__metadata__":{"format":"pt"}})",
              data);
    const WeightMap w = WeightMap::open(tmp("ok.safetensors"));
    EXPECT_EQ(w.get("a", {3}).to_f32(), (std::vector<float>{0.25f, 2.0f, 4.0f}));
    const WeightMap copied = WeightMap::open(tmp("ok.safetensors"), "model", LoadMode::copy);
    EXPECT_EQ(copied.get("b", {2, 1}).to_f32(), (std::vector<float>{1.5f, -3.0f}));
    EXPECT_NE(copied.get("a").data, w.get("a").data);
    EXPECT_EQ(w.get("b", {2, 1}).to_f32(), (std::vector<float>{1.5f, -3.0f}));
    EXPECT_EQ(w.get("c").to_f32(), (std::vector<float>{1.0f, -2.0f}));
    EXPECT_EQ(w.unused().size(), 0u);
}

TEST(Safetensors, ShardedIndexMergesFiles) {
    const std::string dir = testing::tmp_dir() + "/sharded";
    ::mkdir(dir.c_str(), 0755);
    write_raw(dir + "/part1.safetensors",
              R"({"x":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", f32_bytes({7.0f}));
    write_raw(dir + "/part2.safetensors",
              R"({"y":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", f32_bytes({9.0f}));
    std::ofstream(dir + "/model.safetensors.index.json")
        << R"({"metadata":{},"weight_map":{"x":"part1.safetensors","y":"part2.safetensors"}})";
    const WeightMap w = WeightMap::open(dir);
    EXPECT_EQ(w.get("x").to_f32()[0], 7.0f);
    EXPECT_EQ(w.get("y").to_f32()[0], 9.0f);
}

TEST(Safetensors, MissingAndMisShapedTensorsAreNamed) {
    write_raw(tmp("one.safetensors"), R"({"t":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})",
              f32_bytes({1, 2}));
    const WeightMap w = WeightMap::open(tmp("one.safetensors"));
    EXPECT_NE(
        error_of([&] { w.get("nope", {4}); }).find("missing tensor nope (expected shape [4])"),
        std::string::npos);
    EXPECT_NE(error_of([&] { w.get("t", {3}); }).find("tensor t has shape [2], expected [3]"),
              std::string::npos);
}

TEST(Safetensors, BrokenFilesGiveClearErrors) {
    write_raw(tmp("trunc.safetensors"),
              R"({"t":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})", f32_bytes({1, 2}));
    EXPECT_NE(error_of([] { WeightMap::open(tmp("trunc.safetensors")); }).find("truncated"),
              std::string::npos);

    write_raw(tmp("badjson.safetensors"), R"({"t":{"dtype":"F32",)", "");
    EXPECT_NE(error_of([] {
                  WeightMap::open(tmp("badjson.safetensors"));
              }).find("corrupt safetensors header"),
              std::string::npos);

    std::ofstream(tmp("huge.safetensors"), std::ios::binary)
        << std::string("\xff\xff\xff\xff\xff\xff\x00\x00{}", 10);
    EXPECT_NE(error_of([] { WeightMap::open(tmp("huge.safetensors")); }).find("exceeds the file"),
              std::string::npos);

    write_raw(tmp("dtype.safetensors"),
              R"({"t":{"dtype":"F8_E4M3","shape":[1],"data_offsets":[0,1]}})", "x");
    EXPECT_NE(error_of([] {
                  WeightMap::open(tmp("dtype.safetensors"));
              }).find("unsupported dtype 'F8_E4M3'"),
              std::string::npos);

    write_raw(tmp("size.safetensors"), R"({"t":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})",
              f32_bytes({1, 2}));
    EXPECT_NE(
        error_of([] { WeightMap::open(tmp("size.safetensors")); }).find("does not match shape"),
        std::string::npos);

    std::ofstream(tmp("tiny.safetensors")) << "abc";
    EXPECT_NE(error_of([] { WeightMap::open(tmp("tiny.safetensors")); }).find("too short"),
              std::string::npos);

    EXPECT_NE(error_of([] { WeightMap::open(tmp("absent.safetensors")); }).find("cannot open"),
              std::string::npos);
    EXPECT_NE(error_of([] { WeightMap::open(testing::tmp_dir()); }).find("no model.safetensors"),
              std::string::npos);
}

std::string open_error(const std::string& path) {
    return error_of([&] { SafetensorsFile f(path); });
}

TEST(Safetensors, ShapeAndByteCountOverflowsAreErrors) {
    // 2^62 F32 elements: 2^64 bytes wrap to 0, which once matched data_offsets [0, 0].
    write_raw(tmp("wrap.safetensors"),
              R"({"t":{"dtype":"F32","shape":[4611686018427387904],"data_offsets":[0,0]}})", "");
    EXPECT_NE(open_error(tmp("wrap.safetensors"))
                  .find(tmp("wrap.safetensors") + ": tensor t: shape [4611686018427387904] of "
                                                  "4-byte elements has more bytes than fit in 64 "
                                                  "bits"),
              std::string::npos)
        << open_error(tmp("wrap.safetensors"));
    write_raw(tmp("numel.safetensors"),
              R"({"t":{"dtype":"I64","shape":[1152921504606846977,16],"data_offsets":[0,128]}})",
              std::string(128, '\0'));
    EXPECT_NE(open_error(tmp("numel.safetensors")).find("has more elements than fit in 64 bits"),
              std::string::npos);
    TensorView v;
    v.name = "w";
    v.shape = {int64_t(1) << 40, int64_t(1) << 40};
    EXPECT_EQ(error_of([&] { v.numel(); }),
              "tensor w: shape [1099511627776, 1099511627776] has more elements than fit in 64 "
              "bits");
    v.shape = {int64_t(1) << 62};  // f32: 2^64 bytes
    EXPECT_EQ(error_of([&] { v.nbytes(); }),
              "tensor w: shape [4611686018427387904] of 4-byte elements has more bytes than fit "
              "in 64 bits");
    v.shape = {3, -2};
    EXPECT_EQ(error_of([&] { v.numel(); }), "tensor w: shape [3, -2] has a negative dimension");
    EXPECT_EQ(error_of([&] { v.nbytes(); }), "tensor w: shape [3, -2] has a negative dimension");
}

TEST(Safetensors, ShapesAndOffsetsMustBeNonNegativeIntegers) {
    const std::pair<const char*, const char*> cases[] = {
        {R"({"t":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})",
         "tensor t: shape holds -1, not a non-negative integer"},
        {R"({"t":{"dtype":"F32","shape":[1.5],"data_offsets":[0,4]}})",
         "tensor t: shape holds 1.5, not a non-negative integer"},
        {R"({"t":{"dtype":"F32","shape":["1"],"data_offsets":[0,4]}})",
         "tensor t: shape holds \"1\", not a non-negative integer"},
        {R"({"t":{"dtype":"F32","shape":[18446744073709551615],"data_offsets":[0,4]}})",
         "tensor t: shape value 18446744073709551615 is too large"},
        {R"({"t":{"dtype":"F32","shape":[1],"data_offsets":[0]}})",
         "tensor t: data_offsets must be [begin, end]"},
        {R"({"t":{"dtype":"F32","shape":[1],"data_offsets":[4,0]}})",
         "tensor t: data offsets [4, 0] lie outside the 4 data bytes"},
        {R"({"t":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
         "tensor t: data offsets [4, 8] lie outside the 4 data bytes"},
        {R"({"t":{"dtype":"F32","shape":[1]}})",
         "tensor t: data_offsets is missing or not an array"},
        {R"({"t":{"shape":[1],"data_offsets":[0,4]}})", "tensor t: no dtype string"},
        {R"({"t":7})", "tensor t: no dtype string"},
        {R"([1, 2])", "safetensors header is not a JSON object"},
        {R"({"__metadata__":[1]})", "__metadata__ is not a JSON object"},
    };
    for (const auto& [header, message] : cases) {
        write_raw(tmp("bad.safetensors"), header, f32_bytes({1}));
        EXPECT_NE(open_error(tmp("bad.safetensors")).find(message), std::string::npos)
            << header << " → " << open_error(tmp("bad.safetensors"));
    }
}

TEST(Safetensors, HeaderLengthIsBoundedByTheFile) {
    write_raw(tmp("len.safetensors"), "{}", "");
    std::fstream f(tmp("len.safetensors"), std::ios::in | std::ios::out | std::ios::binary);
    const uint64_t len = 11;  // the file holds 8 + 2 bytes
    f.write(reinterpret_cast<const char*>(&len), 8);
    f.close();
    EXPECT_NE(
        open_error(tmp("len.safetensors")).find("(declared length 11 exceeds the file of 10 bytes"),
        std::string::npos)
        << open_error(tmp("len.safetensors"));
    EXPECT_NE(open_error(testing::tmp_dir()).find(testing::tmp_dir() + ": not a regular file"),
              std::string::npos);
}

TEST(Safetensors, MisalignedTensorsAreCopiedToAlignedMemory) {
    // A 1-byte tensor first puts the F32 tensor at an odd address in the mapping; the header
    // is padded to 8 bytes as writers do, so the data starts aligned.
    std::string header = R"({"u":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},)"
                         R"("f":{"dtype":"F32","shape":[2],"data_offsets":[1,9]},)"
                         R"("g":{"dtype":"F32","shape":[1],"data_offsets":[12,16]}})";
    header.append((8 - header.size() % 8) % 8, ' ');
    write_raw(tmp("align.safetensors"), header,
              "\x07" + f32_bytes({1.5f, -2.0f}) + std::string(3, '\0') + f32_bytes({4.0f}));
    for (const LoadMode mode : {LoadMode::mmap, LoadMode::copy}) {
        const SafetensorsFile f(tmp("align.safetensors"), mode);
        const TensorView& t = f.tensors().at("f");
        EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data) % 4, 0u);
        EXPECT_EQ(t.to_f32(), (std::vector<float>{1.5f, -2.0f}));
        // Aligned tensors stay in place (no copy on the fast path).
        const auto* u = static_cast<const uint8_t*>(f.tensors().at("u").data);
        EXPECT_EQ(static_cast<const uint8_t*>(f.tensors().at("g").data), u + 12);
        EXPECT_EQ(f.tensors().at("g").to_f32(), (std::vector<float>{4.0f}));
    }
}

TEST(Safetensors, ShardNamesMustStayInsideTheModelDirectory) {
    const std::string dir = testing::tmp_dir() + "/sharded_evil";
    ::mkdir(dir.c_str(), 0755);
    ::mkdir((dir + "/sub").c_str(), 0755);
    write_raw(dir + "/sub/part.safetensors",
              R"({"x":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", f32_bytes({7.0f}));
    const std::string index = dir + "/model.safetensors.index.json";
    for (const char* shard : {"../sharded/part1.safetensors", "/etc/passwd", "sub/../../x",
                              "./sub/part.safetensors", "sub//part.safetensors", ""}) {
        std::ofstream(index) << R"({"weight_map":{"x":")" << shard << R"("}})";
        EXPECT_NE(error_of([&] { WeightMap::open(dir); })
                      .find(index + ": weight_map entry x names shard '" + shard +
                            "', which is not a file inside the model directory"),
                  std::string::npos)
            << shard << " → " << error_of([&] { WeightMap::open(dir); });
    }
    std::ofstream(index) << R"({"weight_map":{"x":7}})";
    EXPECT_NE(error_of([&] {
                  WeightMap::open(dir);
              }).find(index + ": weight_map entry x is not a file name"),
              std::string::npos);
    std::ofstream(index) << R"({"weight_map":{"x":"sub/part.safetensors"}})";
    EXPECT_EQ(WeightMap::open(dir).get("x").to_f32(), (std::vector<float>{7.0f}));
}

TEST(Safetensors, EmptyTensorsReadAsEmpty) {
    write_raw(tmp("empty.safetensors"),
              R"({"z":{"dtype":"F32","shape":[0,4],"data_offsets":[0,0]}})", "");
    const SafetensorsFile f(tmp("empty.safetensors"));
    EXPECT_EQ(f.tensors().at("z").numel(), 0);
    EXPECT_TRUE(f.tensors().at("z").to_f32().empty());
}

TEST(Safetensors, WriterAlignsEveryTensor) {
    // 3 floats (12 bytes) then int64s: written widest first, so both stay aligned in place.
    const float x[3] = {1, 2, 3};
    const int64_t c[2] = {5, 6};
    write_safetensors(tmp("written.safetensors"),
                      {{"x", DType::f32, {3}, x}, {"c", DType::i64, {1, 2}, c}}, {{"k", "v"}});
    const SafetensorsFile f(tmp("written.safetensors"));
    const auto* xp = static_cast<const uint8_t*>(f.tensors().at("x").data);
    const auto* cp = static_cast<const uint8_t*>(f.tensors().at("c").data);
    EXPECT_EQ(xp, cp + 16);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(cp) % 8, 0u);
    EXPECT_EQ(f.tensors().at("x").to_f32(), (std::vector<float>{1, 2, 3}));
    EXPECT_EQ(static_cast<const int64_t*>(f.tensors().at("c").data)[1], 6);
    EXPECT_EQ(f.metadata().at("k"), "v");
}

TEST(Safetensors, TensorNamesOfTheRealCheckpointAreReadVerbatim) {
    const WeightMap w = WeightMap::open(testing::model_dir("tiny-custom_voice"));
    EXPECT_EQ(w.all().size(), 85u);
    EXPECT_EQ(w.get("talker.codec_head.weight").shape, (std::vector<int64_t>{3072, 32}));
    EXPECT_EQ(w.get("talker.model.text_embedding.weight").dtype, DType::f32);
}

}  // namespace
}  // namespace qwen3tts

namespace qwen3tts {
namespace {

using testing::resident_bytes;

TEST(SafetensorsReleasePages, AMappedTensorsPagesLeaveRssAndFaultBackIn) {
    const std::string path = testing::tmp_dir() + "/release_pages.safetensors";
    const size_t n = size_t(32) << 20;  // 32 MiB of bf16
    std::vector<uint16_t> data(n / 2, f32_to_bf16(0.25f));
    write_safetensors(path, {{"big", DType::bf16, {int64_t(n / 2)}, data.data()}}, {});
    data.clear();
    data.shrink_to_fit();
    const WeightMap w = WeightMap::open(path, "", LoadMode::mmap);
    const TensorView& t = w.get("big");
    volatile uint32_t sum = 0;
    const size_t before = resident_bytes();
    for (size_t i = 0; i < n / 2; i += 2048) sum = sum + static_cast<const uint16_t*>(t.data)[i];
    const size_t touched = resident_bytes();
    EXPECT_GT(touched, before + n / 2) << "reading the tensor did not map it in";
    w.release_pages(t);
    EXPECT_LT(resident_bytes(), touched - n / 2) << "its pages stayed resident";
    EXPECT_EQ(t.at_f32(int64_t(n / 2) - 1), 0.25f) << "the bytes are still readable";
}

TEST(SafetensorsReleasePages, APrivateCopyKeepsItsBytes) {
    const std::string path = testing::tmp_dir() + "/release_copy.safetensors";
    std::vector<float> data(size_t(1) << 20, 1.5f);
    write_safetensors(path, {{"t", DType::f32, {int64_t(data.size())}, data.data()}}, {});
    const WeightMap w = WeightMap::open(path, "", LoadMode::copy);
    w.release_pages(w.get("t"));
    EXPECT_EQ(w.get("t").at_f32(12345), 1.5f);
}

// Quantizing at load reads a mapped tensor with pread (core/mapped_files.hpp), so its pages are
// never mapped into the process (page faults cost 4x the CPU of pread on this project's VMs);
// the codes equal those made from a private copy.
TEST(SafetensorsMappedRead, QuantizingAMappedTensorDoesNotFaultItIn) {
    const std::string path = testing::tmp_dir() + "/mapped_read.safetensors";
    const int64_t rows = 4096, cols = 4096;  // 32 MiB of bf16
    std::vector<uint16_t> data(size_t(rows * cols));
    for (size_t i = 0; i < data.size(); ++i) data[i] = f32_to_bf16(float(int(i % 977) - 488));
    write_safetensors(path, {{"w", DType::bf16, {rows, cols}, data.data()}}, {});
    data.clear();
    data.shrink_to_fit();
    const WeightMap copy = WeightMap::open(path, "", LoadMode::copy);
    const auto want = backend::quantize_weights(copy.get("w"), backend::QuantFormat::q4, nullptr);
    const WeightMap mapped = WeightMap::open(path, "", LoadMode::mmap);
    const size_t before = resident_bytes();
    const auto got = backend::quantize_weights(mapped.get("w"), backend::QuantFormat::q4, nullptr);
    // The q4 copy itself is 8.5 MiB; the tensor's 32 MiB must not have come in.
    EXPECT_LT(resident_bytes(), before + (size_t(16) << 20));
    ASSERT_EQ(got.codes.size(), want.codes.size());
    EXPECT_EQ(0, std::memcmp(got.codes.data(), want.codes.data(), want.codes.size()));
    EXPECT_EQ(0, std::memcmp(got.scales.data(), want.scales.data(), want.scales.size() * 2));
}

}  // namespace
}  // namespace qwen3tts
