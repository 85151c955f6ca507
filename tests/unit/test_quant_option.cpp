// LoadOptions::quant: the accepted spellings, what ModelInfo reports, and clear errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "api/option_parsing.hpp"
#include "qwen3tts/qwen3tts.hpp"
#include "support/test_support.hpp"

namespace qwen3tts {
namespace {

std::string quant_of(const std::string& spec) {
    LoadOptions o;
    o.quant = spec;
    return Model::load(testing::model_dir("tiny-custom_voice"), o).info().quant;
}

// The tiny checkpoint's talker is 32 wide (quantizable); its code predictor is 16 wide, less
// than one block of 32, so only the talker can be quantized there.
TEST(QuantOption, SpellingsAndTheReportedSetting) {
    EXPECT_EQ(quant_of("bf16"), "bf16");
    EXPECT_EQ(quant_of(""), "bf16");
    EXPECT_EQ(quant_of("talker=q4"), "talker=q4,predictor=bf16");
    EXPECT_EQ(quant_of("talker=q8,predictor=bf16"), "talker=q8,predictor=bf16");
    EXPECT_EQ(quant_of("predictor=bf16,talker=q4"), "talker=q4,predictor=bf16");
}

// docs/quantization.md: q8 output heads cost nothing measurable beside q4 layers, so a q4
// component's heads are q8; a q8 component's stay as stored.
TEST(QuantOption, AQ4ComponentsHeadsAreQ8) {
    const auto q8 = std::optional(backend::QuantFormat::q8);
    const QuantPlan q4 = parse_quant_plan("q4");
    EXPECT_EQ(q4.talker_head, q8);
    EXPECT_EQ(q4.predictor_heads, q8);
    const QuantPlan q8_plan = parse_quant_plan("q8");
    EXPECT_EQ(q8_plan.talker_head, std::nullopt);
    EXPECT_EQ(q8_plan.predictor_heads, std::nullopt);
    const QuantPlan mixed = parse_quant_plan("talker=q8,predictor=q4");
    EXPECT_EQ(mixed.talker_head, std::nullopt);
    EXPECT_EQ(mixed.predictor_heads, q8);
    EXPECT_EQ(quant_of("talker=q4"), "talker=q4,predictor=bf16");  // the tiny's 32-wide head
}

TEST(QuantOption, AMatrixNarrowerThanABlockIsAClearError) {
    EXPECT_EQ(testing::error_of([] { quant_of("q8"); }),
              "cannot quantize talker.code_predictor.model.layers.0.self_attn.q_proj.weight to "
              "q8: expected a 2-D float matrix with a multiple of 32 columns, got F32 [64, 16]");
}

// The tokenizer loads on its own thread while the weights are quantized; its error is still
// the one reported when both fail, as when it loaded first.
TEST(QuantOption, ATokenizerErrorComesBeforeAQuantizationError) {
    namespace fs = std::filesystem;
    const std::string dir = testing::tmp_dir() + "/quant_option_bad_tokenizer";
    fs::remove_all(dir);
    fs::copy(testing::model_dir("tiny-custom_voice"), dir, fs::copy_options::recursive);
    std::ofstream(dir + "/merges.txt") << "#version: 0.2\nonly_one_part\n";
    LoadOptions o;
    o.quant = "q8";  // the 16-wide code predictor cannot be quantized
    const std::string error = testing::error_of([&] { Model::load(dir, o); });
    EXPECT_NE(error.find("merges.txt"), std::string::npos) << error;
    o.quant = "bf16";
    EXPECT_EQ(testing::error_of([&] { Model::load(dir, o); }), error);
    fs::remove_all(dir);
}

TEST(QuantOption, ErrorsNameTheBadPart) {
    EXPECT_EQ(testing::error_of([] { quant_of("q5"); }),
              "unknown quantization 'q5' in 'q5' (bf16, q8 or q4)");
    EXPECT_EQ(
        testing::error_of([] { quant_of("talker=q4,codec=q8"); }),
        "bad quantization 'talker=q4,codec=q8': expected bf16, q8, q4 or talker=F,predictor=F");
    EXPECT_EQ(testing::error_of([] { quant_of("talker=int8"); }),
              "unknown quantization 'int8' in 'talker=int8' (bf16, q8 or q4)");
}

TEST(QuantOption, QuantizedModelSpeaks) {
    LoadOptions o;
    o.quant = "talker=q4";
    const Model model = Model::load(testing::model_dir("tiny-custom_voice"), o);
    Synthesizer synth(model, EngineOptions{1});
    SynthesisOptions s = model.default_options();
    s.speaker = "ryan";
    s.language = "english";
    s.max_frames = 6;
    s.seed = 1;
    const auto codes = synth.generate_codes("Hello.", s);
    ASSERT_FALSE(codes.empty());
    for (int32_t c : codes) {
        EXPECT_GE(c, 0);
        EXPECT_LT(c, model.info().codebook_size);
    }
}

}  // namespace
}  // namespace qwen3tts
