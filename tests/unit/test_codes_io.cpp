// Codes files (.npy [frames, n_codebook]): frame width and code range come from the model.
#include <gtest/gtest.h>

#include <functional>

#include "core/npy.hpp"
#include "qwen3tts/qwen3tts.hpp"
#include "support/test_support.hpp"

namespace qwen3tts {
namespace {

using testing::error_of;

std::string write_codes(const std::string& name, const std::vector<int64_t>& v,
                        const std::vector<int64_t>& shape) {
    const std::string path = testing::tmp_dir() + "/codes_" + name;
    write_npy_i64(path, v.data(), shape);
    return path;
}

// The frame width and code range come from the model (a codec config that disagrees with the
// talker is refused at load, see test_config_model.cpp).
TEST(CodesIo, ShapeAndRangeComeFromTheModel) {
    const Model model = Model::load(testing::model_dir("tiny-custom_voice"));
    std::vector<int64_t> codes(32, 5);
    EXPECT_EQ(load_codes_npy(write_codes("ok16.npy", codes, {2, 16}), model).size(), 32u);

    const std::string narrow = write_codes("narrow.npy", std::vector<int64_t>(16, 1), {2, 8});
    EXPECT_EQ(error_of([&] { load_codes_npy(narrow, model); }),
              narrow + ": codes must have shape [frames, 16], got [2, 8]");

    codes[16 + 3] = 2048;
    const std::string big = write_codes("big.npy", codes, {2, 16});
    EXPECT_EQ(error_of([&] { load_codes_npy(big, model); }),
              big + ": code 2048 at frame 1, codebook 3 is outside [0, 2048)");
}

TEST(CodesIo, SaveUsesTheTalkersFrameWidth) {
    const Model model = Model::load(testing::model_dir("tiny-custom_voice"));
    const std::string path = testing::tmp_dir() + "/codes_saved.npy";
    save_codes_npy(path, std::vector<int32_t>(32, 9), model);
    EXPECT_EQ(read_npy(path).shape, (std::vector<int64_t>{2, 16}));
    EXPECT_EQ(error_of([&] { save_codes_npy(path, std::vector<int32_t>(20, 9), model); }),
              "codes are not a whole number of 16-code frames");
}

}  // namespace
}  // namespace qwen3tts
