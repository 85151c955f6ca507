// LoadOptions::copy_frame_weights = false (what `qwen3tts voice`, `encode` and `info` use): the
// talker's and code predictor's weights are read where the checkpoint's mapping has them, not
// copied at load, and the model still gives the official greedy codes.
#include <gtest/gtest.h>

#include "golden/golden_cases.hpp"
#include "qwen3tts/qwen3tts.hpp"
#include "runtime/session.hpp"

namespace qwen3tts {
namespace {

using namespace golden_cases;

LoadOptions without_copies() {
    LoadOptions o;
    o.copy_frame_weights = false;
    return o;
}

TEST(MappedFrameWeights, LoadingTakesAFractionOfTheMemory) {
    const std::string dir = checkpoint_dir("real-0.6b-custom_voice");
    size_t weight_bytes = 0, light = 0, full = 0;
    {
        const size_t before = testing::resident_bytes();
        const Model model = Model::load(dir, without_copies());
        light = testing::resident_bytes() - before;
        weight_bytes = model.info().weight_bytes;
    }
    {
        const size_t before = testing::resident_bytes();
        const Model model = Model::load(dir);
        full = testing::resident_bytes() - before;
    }
    // The 0.6B's frame weights are ~1 GB in bf16 (1.8 GB in the file): the default load holds
    // them, the light one none of them (measured: 93 MB of other state under ASan).
    EXPECT_GT(full, weight_bytes / 3) << "the default load no longer copies the frame weights";
    EXPECT_LT(light, weight_bytes / 8) << "the light load read the frame weights in";
}

TEST(MappedFrameWeights, TheModelGivesTheGoldenGreedyCodes) {
    const GoldenCase c = real_cases().front();
    QuantPlan plan;
    plan.copy_mapped = false;
    const auto model = TtsModel::load(checkpoint_dir(c.variant), PretokenizerRegex::mistral_fixed,
                                      LoadMode::mmap, plan);
    Session session(model, SessionOptions{2, backend::KernelSet::fast});
    const Prompt p = session.build_prompt(request(c, nullptr));
    const auto ref = testing::golden(c.variant, c.tag + "__codes");
    GenerationParams params = GenerationParams::defaults(model->config().generation);
    params.talker.do_sample = params.predictor.do_sample = false;
    params.max_new_tokens = int(ref.shape[0]) + 1;
    const auto codes = session.generate(p, params, {});
    const auto want = ref.to_i64();
    EXPECT_EQ(std::vector<int64_t>(codes.begin(), codes.end()), want) << "greedy codes";
}

}  // namespace
}  // namespace qwen3tts
