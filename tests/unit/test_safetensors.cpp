// The safetensors reader and WeightMap: values, dtypes, sharded index, and one clear error per
// kind of broken file.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <fstream>
#include <functional>

#include "core/dtype.hpp"
#include "core/error.hpp"
#include "support/test_support.hpp"
#include "weights/safetensors.hpp"

namespace qwen3tts {
namespace {

std::string tmp(const std::string& name) { return testing::tmp_dir() + "/st_" + name; }

void write_raw(const std::string& path, const std::string& header, const std::string& data) {
    std::ofstream out(path, std::ios::binary);
    const uint64_t n = header.size();
    out.write(reinterpret_cast<const char*>(&n), 8);
    out << header << data;
}

std::string f32_bytes(std::initializer_list<float> v) {
    return std::string(reinterpret_cast<const char*>(std::data(v)), v.size() * sizeof(float));
}

std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return "";
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
    EXPECT_NE(error_of([&] { w.get("nope", {4}); }).find("missing tensor nope (expected shape [4])"),
              std::string::npos);
    EXPECT_NE(error_of([&] { w.get("t", {3}); }).find("tensor t has shape [2], expected [3]"),
              std::string::npos);
}

TEST(Safetensors, BrokenFilesGiveClearErrors) {
    write_raw(tmp("trunc.safetensors"), R"({"t":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})",
              f32_bytes({1, 2}));
    EXPECT_NE(error_of([] { WeightMap::open(tmp("trunc.safetensors")); }).find("truncated"),
              std::string::npos);

    write_raw(tmp("badjson.safetensors"), R"({"t":{"dtype":"F32",)", "");
    EXPECT_NE(error_of([] { WeightMap::open(tmp("badjson.safetensors")); })
                  .find("corrupt safetensors header"),
              std::string::npos);

    std::ofstream(tmp("huge.safetensors"), std::ios::binary) << std::string("\xff\xff\xff\xff\xff\xff\x00\x00{}", 10);
    EXPECT_NE(error_of([] { WeightMap::open(tmp("huge.safetensors")); }).find("exceeds the file"),
              std::string::npos);

    write_raw(tmp("dtype.safetensors"), R"({"t":{"dtype":"F8_E4M3","shape":[1],"data_offsets":[0,1]}})", "x");
    EXPECT_NE(error_of([] { WeightMap::open(tmp("dtype.safetensors")); })
                  .find("unsupported dtype 'F8_E4M3'"),
              std::string::npos);

    write_raw(tmp("size.safetensors"), R"({"t":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})",
              f32_bytes({1, 2}));
    EXPECT_NE(error_of([] { WeightMap::open(tmp("size.safetensors")); }).find("does not match shape"),
              std::string::npos);

    std::ofstream(tmp("tiny.safetensors")) << "abc";
    EXPECT_NE(error_of([] { WeightMap::open(tmp("tiny.safetensors")); }).find("too short"),
              std::string::npos);

    EXPECT_NE(error_of([] { WeightMap::open(tmp("absent.safetensors")); }).find("cannot open"),
              std::string::npos);
    EXPECT_NE(error_of([] { WeightMap::open(testing::tmp_dir()); }).find("no model.safetensors"),
              std::string::npos);
}

TEST(Safetensors, TensorNamesOfTheRealCheckpointAreReadVerbatim) {
    const WeightMap w = WeightMap::open(testing::model_dir("tiny-custom_voice"));
    EXPECT_EQ(w.all().size(), 85u);
    EXPECT_EQ(w.get("talker.codec_head.weight").shape, (std::vector<int64_t>{3072, 32}));
    EXPECT_EQ(w.get("talker.model.text_embedding.weight").dtype, DType::f32);
}

}  // namespace
}  // namespace qwen3tts
