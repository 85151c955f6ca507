// build_info(): the version of CMakeLists.txt's project(), a commit id, the SIMD level the
// kernels really use (lowered by the CPU detector's cap), and version_string() made of them.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "backend/cpu/cpu_features.hpp"
#include "qwen3tts/qwen3tts.hpp"
#include "support/test_support.hpp"

namespace qwen3tts {
namespace {

std::string project_version_from_cmakelists() {
    std::ifstream in(std::string(QWEN3TTS_SOURCE_DIR) + "/CMakeLists.txt");
    std::stringstream all;
    all << in.rdbuf();
    std::smatch m;
    const std::string text = all.str();
    if (!std::regex_search(text, m, std::regex(R"(project\(qwen3tts VERSION ([0-9.]+))")))
        return "(no project version in CMakeLists.txt)";
    return m[1];
}

TEST(BuildInfo, VersionCommitAndBuildType) {
    const BuildInfo b = build_info();
    EXPECT_EQ(b.version, project_version_from_cmakelists());
    EXPECT_TRUE(std::regex_match(b.git_commit, std::regex("[0-9a-f]{12}|unknown"))) << b.git_commit;
    EXPECT_FALSE(b.build_type.empty());
    EXPECT_EQ(version_string(),
              b.version + " (git " + b.git_commit + ", " + b.simd + ", " + b.build_type + ")");
}

TEST(BuildInfo, SimdLevelIsTheOneTheKernelsUse) {
    EXPECT_EQ(build_info().simd, cpu::isa_name(cpu::detected_isa()));
    ASSERT_TRUE(cpu::set_max_isa(cpu::Isa::generic));
    EXPECT_EQ(build_info().simd, "generic");
    cpu::reset_max_isa();
}

}  // namespace
}  // namespace qwen3tts
