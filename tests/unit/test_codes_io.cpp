// Codes files (.npy [frames, n_codebook]): frame width and code range come from the model's
// codec config, shown with a copy of the tiny checkpoint whose codec has 8 codebooks of 1024.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "core/npy.hpp"
#include "qwen3tts/qwen3tts.hpp"
#include "support/test_support.hpp"

namespace qwen3tts {
namespace {

namespace fs = std::filesystem;

std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

std::string write_codes(const std::string& name, const std::vector<int64_t>& v,
                        const std::vector<int64_t>& shape) {
    const std::string path = testing::tmp_dir() + "/codes_" + name;
    write_npy_i64(path, v.data(), shape);
    return path;
}

// tiny-custom_voice with its codec config edited (files hard-linked, the edited one replaced).
std::string model_with_codec(int n_codebook, int codebook_size) {
    const fs::path dir = testing::tmp_dir() + "/codes_model_" + std::to_string(n_codebook);
    fs::remove_all(dir);
    fs::copy(testing::model_dir("tiny-custom_voice"), dir,
             fs::copy_options::recursive | fs::copy_options::create_hard_links);
    const fs::path config = dir / "speech_tokenizer" / "config.json";
    std::stringstream text;
    text << std::ifstream(config).rdbuf();
    std::string s = text.str();
    // The first occurrences are decoder_config's (encoder_config follows it).
    auto replace = [&](const std::string& from, const std::string& to) {
        s.replace(s.find(from), from.size(), to);
    };
    replace("\"num_quantizers\": 16", "\"num_quantizers\": " + std::to_string(n_codebook));
    replace("\"codebook_size\": 2048", "\"codebook_size\": " + std::to_string(codebook_size));
    fs::remove(config);
    std::ofstream(config) << s;
    return dir.string();
}

TEST(CodesIo, ShapeAndRangeComeFromTheCodecConfig) {
    const Model model = Model::load(model_with_codec(8, 1024));
    std::vector<int64_t> codes(16, 5);
    EXPECT_EQ(load_codes_npy(write_codes("ok8.npy", codes, {2, 8}), model).size(), 16u);

    const std::string wide = write_codes("wide.npy", std::vector<int64_t>(32, 1), {2, 16});
    EXPECT_EQ(error_of([&] { load_codes_npy(wide, model); }),
              wide + ": codes must have shape [frames, 8], got [2, 16]");

    codes[8 + 3] = 1024;
    const std::string big = write_codes("big.npy", codes, {2, 8});
    EXPECT_EQ(error_of([&] { load_codes_npy(big, model); }),
              big + ": code 1024 at frame 1, codebook 3 is outside [0, 1024)");
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
