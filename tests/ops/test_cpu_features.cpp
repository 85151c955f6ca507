// The one CPU feature detector (backend/cpu/cpu_features): detection agrees with the
// compiler's own view of the CPU, QWEN3TTS_ISA values resolve or fail with the reason, and
// set_max_isa() moves every kernel selector at once.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "backend/cpu/conv_gemm.hpp"
#include "backend/cpu/cpu_features.hpp"
#include "backend/cpu/linear_cpu.hpp"

namespace qwen3tts {
namespace {

TEST(CpuFeatures, DetectionAgreesWithTheCompiler) {
    __builtin_cpu_init();
    // "f16c" is not a name clang's __builtin_cpu_supports knows; AVX2 CPUs all have it.
    const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    const bool avx512 = avx2 && __builtin_cpu_supports("avx512f") &&
                        __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
                        __builtin_cpu_supports("avx512dq");
    const cpu::Isa want = avx512 ? cpu::Isa::avx512 : avx2 ? cpu::Isa::avx2 : cpu::Isa::generic;
    EXPECT_STREQ(cpu::isa_name(cpu::detected_isa()), cpu::isa_name(want));
}

TEST(CpuFeatures, NamesRoundTrip) {
    for (cpu::Isa level : {cpu::Isa::generic, cpu::Isa::avx2, cpu::Isa::avx512}) {
        cpu::Isa parsed = cpu::Isa::generic;
        ASSERT_TRUE(cpu::parse_isa(cpu::isa_name(level), &parsed)) << cpu::isa_name(level);
        EXPECT_EQ(parsed, level);
    }
    cpu::Isa parsed;
    EXPECT_FALSE(cpu::parse_isa("AVX2", &parsed));
    EXPECT_FALSE(cpu::parse_isa("", &parsed));
}

TEST(CpuFeatures, RequestAboveTheCpuIsAnErrorNamingBoth) {
    cpu::Isa isa = cpu::Isa::generic;
    std::string error;
    EXPECT_FALSE(cpu::resolve_isa_request("avx512", cpu::Isa::avx2, &isa, &error));
    EXPECT_EQ(error, "QWEN3TTS_ISA=avx512 but this CPU supports at most avx2");
    error.clear();
    EXPECT_FALSE(cpu::resolve_isa_request("avx2", cpu::Isa::generic, &isa, &error));
    EXPECT_EQ(error, "QWEN3TTS_ISA=avx2 but this CPU supports at most generic");
}

TEST(CpuFeatures, UnknownRequestIsAnErrorListingTheLevels) {
    cpu::Isa isa = cpu::Isa::generic;
    std::string error;
    EXPECT_FALSE(cpu::resolve_isa_request("sse4", cpu::Isa::avx512, &isa, &error));
    EXPECT_EQ(error, "QWEN3TTS_ISA=sse4 is not a known level (use generic, avx2 or avx512)");
}

TEST(CpuFeatures, RequestAtOrBelowTheCpuIsTaken) {
    cpu::Isa isa = cpu::Isa::avx512;
    std::string error;
    EXPECT_TRUE(cpu::resolve_isa_request("generic", cpu::Isa::avx512, &isa, &error));
    EXPECT_EQ(isa, cpu::Isa::generic);
    EXPECT_TRUE(cpu::resolve_isa_request("avx2", cpu::Isa::avx2, &isa, &error));
    EXPECT_EQ(isa, cpu::Isa::avx2);
    EXPECT_TRUE(cpu::resolve_isa_request(nullptr, cpu::Isa::avx2, &isa, &error));
    EXPECT_EQ(isa, cpu::Isa::avx2);
    EXPECT_TRUE(cpu::resolve_isa_request("", cpu::Isa::avx512, &isa, &error));
    EXPECT_EQ(isa, cpu::Isa::avx512);
    EXPECT_EQ(error, "");
}

TEST(CpuFeatures, SetMaxIsaMovesEveryKernelAndRefusesWhatTheCpuLacks) {
    const cpu::Isa best = cpu::detected_isa();
    for (cpu::Isa level : {cpu::Isa::generic, cpu::Isa::avx2, cpu::Isa::avx512}) {
        if (int(level) > int(best)) {
            EXPECT_FALSE(cpu::set_max_isa(level)) << cpu::isa_name(level);
            continue;
        }
        ASSERT_TRUE(cpu::set_max_isa(level));
        EXPECT_EQ(cpu::active_isa(), level);
        EXPECT_STREQ(cpu::conv_gemm_isa(), cpu::isa_name(level));
        EXPECT_STREQ(backend::linear_cpu_isa(), cpu::isa_name(level));
    }
    cpu::reset_max_isa();
    if (std::getenv("QWEN3TTS_ISA") == nullptr) {
        EXPECT_EQ(cpu::active_isa(), best);
    }
}

}  // namespace
}  // namespace qwen3tts
