// BuildInfo: the version, commit and build type come from CMake (compile definitions of this
// file only, so a new commit recompiles one file).
#include "backend/ops.hpp"
#include "qwen3tts/qwen3tts.hpp"

namespace qwen3tts {

BuildInfo build_info() {
    BuildInfo b;
    b.version = QWEN3TTS_VERSION;
    b.git_commit = QWEN3TTS_GIT_COMMIT;
    b.simd = backend::fast_kernel_level();
    b.build_type = QWEN3TTS_BUILD_TYPE;
    return b;
}

std::string version_string() {
    const BuildInfo b = build_info();
    return b.version + " (git " + b.git_commit + ", " + b.simd + ", " + b.build_type + ")";
}

}  // namespace qwen3tts
