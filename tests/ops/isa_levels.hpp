// Op tests run at every SIMD level (cpu_features.hpp): a level this CPU lacks is skipped with a
// message, so an AVX-512 machine still runs the avx2 and generic kernels.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "backend/cpu/cpu_features.hpp"

namespace qwen3tts::testing_isa {

inline const auto kAllLevels =
    ::testing::Values(cpu::Isa::avx512, cpu::Isa::avx2, cpu::Isa::generic);

// Caps the kernels at `level` (call from SetUp; undo with cpu::reset_max_isa() in TearDown),
// or skips the test when the CPU cannot run that level.
inline void enter_level(cpu::Isa level) {
    if (!cpu::set_max_isa(level))
        GTEST_SKIP() << "this CPU supports at most " << cpu::isa_name(cpu::detected_isa())
                     << ", not " << cpu::isa_name(level);
}

// A fixture whose parameter is the level.
class AtLevel : public ::testing::TestWithParam<cpu::Isa> {
  protected:
    void SetUp() override { enter_level(GetParam()); }
    void TearDown() override { cpu::reset_max_isa(); }
};

inline std::string level_test_name(const ::testing::TestParamInfo<cpu::Isa>& info) {
    return cpu::isa_name(info.param);
}

}  // namespace qwen3tts::testing_isa
