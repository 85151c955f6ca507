// The .npy reader on hostile files: every size in the header is checked (overflow, negative,
// beyond the file) before anything is allocated, and every failure is an Error naming the file.
#include <gtest/gtest.h>

#include <fstream>
#include <functional>

#include "core/error.hpp"
#include "core/npy.hpp"
#include "support/test_support.hpp"

namespace qwen3tts {
namespace {

using testing::error_of;

std::string tmp(const std::string& name) {
    return testing::tmp_dir() + "/npy_" + name;
}

// A version 1.0 file with the given header dict and data bytes.
std::string write_v1(const std::string& name, const std::string& dict, const std::string& data) {
    const std::string path = tmp(name);
    std::ofstream out(path, std::ios::binary);
    const std::string header = dict + "\n";
    out << std::string("\x93NUMPY\x01\x00", 8) << char(header.size() & 0xff)
        << char(header.size() >> 8) << header << data;
    return path;
}

// Only qwen3tts::Error counts: a std::invalid_argument escaping is a failure of the test.
std::string read_error(const std::string& path) {
    return error_of([&] { read_npy(path); });
}

TEST(Npy, WritesAndReadsBack) {
    const int64_t v[6] = {1, 2, 3, 4, 5, -6};
    write_npy_i64(tmp("rt.npy"), v, {2, 3});
    const NpyArray a = read_npy(tmp("rt.npy"));
    EXPECT_EQ(a.descr, "<i8");
    EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(a.to_i64(), (std::vector<int64_t>{1, 2, 3, 4, 5, -6}));
    EXPECT_EQ(a.to_f32(), (std::vector<float>{1, 2, 3, 4, 5, -6}));
}

TEST(Npy, FortranOrderBecomesRowMajor) {
    // Column-major [[1, 2, 3], [4, 5, 6]] is stored 1 4 2 5 3 6.
    const int32_t col[6] = {1, 4, 2, 5, 3, 6};
    const std::string path =
        write_v1("fortran.npy", "{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3), }",
                 std::string(reinterpret_cast<const char*>(col), sizeof col));
    EXPECT_EQ(read_npy(path).to_i64(), (std::vector<int64_t>{1, 2, 3, 4, 5, 6}));
}

TEST(Npy, ShapeProductOverflowIsAnError) {
    // (2^60 + 1) * 16 wraps to 16 in 64 bits: once a segfault (Fortran) or one frame (C order).
    for (const char* order : {"True", "False"}) {
        const std::string path = write_v1("overflow.npy",
                                          std::string("{'descr': '<i8', 'fortran_order': ") +
                                              order + ", 'shape': (1152921504606846977, 16), }",
                                          std::string(128, '\0'));
        EXPECT_NE(read_error(path).find(path + ": shape [1152921504606846977, 16] has more "
                                               "elements than fit in 64 bits"),
                  std::string::npos)
            << read_error(path);
    }
    // Elements fit, bytes do not: 2^62 eight-byte elements.
    const std::string bytes =
        write_v1("overflow_bytes.npy",
                 "{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904,), }", "");
    EXPECT_NE(read_error(bytes).find("has more bytes than fit in 64 bits"), std::string::npos)
        << read_error(bytes);
}

TEST(Npy, NegativeAndNonNumericDimensionsAreErrors) {
    const std::string neg =
        write_v1("neg.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (-1, 16), }", "");
    EXPECT_NE(read_error(neg).find(neg + ": npy header field 'shape' has a negative dimension"),
              std::string::npos)
        << read_error(neg);
    const std::string word =
        write_v1("word.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (x, 16), }", "");
    EXPECT_NE(read_error(word).find(word + ": npy header field 'shape' holds something other "
                                           "than a number"),
              std::string::npos)
        << read_error(word);
    const std::string big = write_v1(
        "big.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }",
        "");
    EXPECT_NE(read_error(big).find("field 'shape' has a dimension that does not fit in 64 bits"),
              std::string::npos)
        << read_error(big);
    const std::string descr = write_v1(
        "descr.npy", "{'descr': '<f99999999999999999999', 'fortran_order': False, 'shape': (1,), }",
        "");
    EXPECT_NE(read_error(descr).find(descr + ": unsupported npy dtype '<f99999999999999999999'"),
              std::string::npos)
        << read_error(descr);
}

TEST(Npy, HeaderLengthIsBoundedByTheFile) {
    // A version 2.0 header may declare 4 GB; it must be refused before it is allocated.
    const std::string path = tmp("v2.npy");
    std::ofstream(path, std::ios::binary)
        << std::string("\x93NUMPY\x02\x00\xf0\xff\xff\xff{'descr'", 19);
    EXPECT_NE(read_error(path).find(path + ": npy header length 4294967280 exceeds the file (19 "
                                           "bytes) or the limit of 65536"),
              std::string::npos)
        << read_error(path);
}

TEST(Npy, DataSizeIsCheckedAgainstTheFileBeforeAllocating) {
    const std::string path = write_v1(
        "short.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (1000000000000,), }",
        std::string(8, '\0'));
    EXPECT_NE(read_error(path).find(path + ": truncated npy data (shape (1000000000000,) of <f4 "
                                           "needs 4000000000000 bytes, the file holds 8)"),
              std::string::npos)
        << read_error(path);
}

TEST(Npy, MalformedHeadersNameTheProblem) {
    const std::string missing =
        write_v1("missing.npy", "{'descr': '<f4', 'shape': (1,), }", std::string(4, '\0'));
    EXPECT_NE(read_error(missing).find("npy header has no 'fortran_order' field"),
              std::string::npos)
        << read_error(missing);
    const std::string order =
        write_v1("order.npy", "{'descr': '<f4', 'fortran_order': Maybe, 'shape': (1,), }", "");
    EXPECT_NE(read_error(order).find("field 'fortran_order' is not True or False"),
              std::string::npos);
    const std::string unterminated = write_v1("unterminated.npy", "{'descr': '<f4", "");
    EXPECT_NE(read_error(unterminated).find("has an unterminated string"), std::string::npos);
    const std::string big_endian =
        write_v1("be.npy", "{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }", "");
    EXPECT_NE(read_error(big_endian).find("unsupported npy dtype '>f4'"), std::string::npos);
    const std::string version = tmp("v9.npy");
    std::ofstream(version, std::ios::binary) << std::string("\x93NUMPY\x09\x00\x00\x00", 10);
    EXPECT_NE(read_error(version).find("npy format version 9 is not supported"), std::string::npos);
}

TEST(Npy, ConversionsCheckTheBytesAgainstTheShape) {
    NpyArray a;
    a.descr = "<f4";
    a.shape = {4};
    a.bytes.resize(8);
    EXPECT_EQ(error_of([&] { a.to_f32(); }), "npy array holds 8 bytes but its shape needs 16");
}

TEST(Npy, ConversionErrorsNameTheFile) {
    const float v[2] = {1, 2};
    write_npy_f32(tmp("floats.npy"), v, {2});
    EXPECT_EQ(error_of([&] { read_npy(tmp("floats.npy")).to_i64(); }),
              tmp("floats.npy") + ": npy dtype '<f4' is not an integer type");
}

}  // namespace
}  // namespace qwen3tts
