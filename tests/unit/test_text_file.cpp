// Whole-file reads of configs are bounded: a huge file or a non-file is an Error naming it.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <functional>

#include "core/error.hpp"
#include "core/text_file.hpp"
#include "support/test_support.hpp"

namespace qwen3tts {
namespace {

using testing::error_of;

TEST(TextFile, ReadsSmallFiles) {
    const std::string path = testing::tmp_dir() + "/text_small.json";
    std::ofstream(path) << "{\"a\": 1}";
    EXPECT_EQ(read_text_file(path, "config"), "{\"a\": 1}");
}

TEST(TextFile, RefusesFilesOverTheLimit) {
    const std::string path = testing::tmp_dir() + "/text_big.json";
    std::ofstream(path) << "{}";
    ASSERT_EQ(::truncate(path.c_str(), 100), 0);
    EXPECT_EQ(error_of([&] { read_text_file(path, "config", 99); }),
              "config " + path + " is 100 bytes; the limit is 99 bytes");
    // The default limit, without writing the bytes (sparse file).
    ASSERT_EQ(::truncate(path.c_str(), off_t(kMaxTextFileBytes) + 1), 0);
    EXPECT_NE(error_of([&] { read_text_file(path, "config"); }).find("; the limit is"),
              std::string::npos);
    ::unlink(path.c_str());
}

TEST(TextFile, RefusesDirectories) {
    EXPECT_EQ(error_of([&] { read_text_file(testing::tmp_dir(), "config"); }),
              "cannot open config " + testing::tmp_dir() + ": it is a directory");
}

TEST(TextFile, FirstWordOfSmallFilesOnly) {
    const std::string path = testing::tmp_dir() + "/text_ref";
    std::ofstream(path) << "  0123abcd\nrest";
    EXPECT_EQ(read_first_word(path), "0123abcd");
    ASSERT_EQ(::truncate(path.c_str(), 4097), 0);  // over 4 KiB: not a ref
    EXPECT_EQ(read_first_word(path), "");
    ::unlink(path.c_str());
    EXPECT_EQ(read_first_word(path), "");
    EXPECT_EQ(read_first_word(testing::tmp_dir()), "");
}

}  // namespace
}  // namespace qwen3tts
