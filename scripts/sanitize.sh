#!/usr/bin/env bash
# Builds qwen3tts with sanitizers and runs the unit, ops, golden, e2e and server tests under them,
# and (ASan + UBSan) each fuzz target over its seed corpus (fuzz/CMakeLists.txt).
#   scripts/sanitize.sh [address,undefined|thread] [ctest arguments...]
# address,undefined (the default) builds into build-asan/, thread into build-tsan/. Any finding
# fails its test: ASan aborts, UBSan halts, leaks are reported at exit. The generated real-size
# checkpoints are shared with build/ (build/generated), so they are written once.
set -euo pipefail
cd "$(dirname "$0")/.."
kind=${1:-address,undefined}
case $kind in
  address,undefined | undefined,address) dir=build-asan ;;
  thread) dir=build-tsan ;;
  *)
    echo "usage: scripts/sanitize.sh [address,undefined|thread] [ctest arguments...]" >&2
    exit 2
    ;;
esac
shift $(($# > 0 ? 1 : 0))
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
# clang-15 (scripts/install-deps.sh): the sanitizer pass is also the proof that the whole tree
# builds warning-free under clang (warnings are errors when CI=true, as in scripts/test.sh).
werror=OFF
if [ "${CI:-}" = true ]; then werror=ON; fi
# The benchmarks are not built here (no test runs them; the main build compiles them).
CC=clang-15 CXX=clang++-15 cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release \
  -DQWEN3TTS_SANITIZE="$kind" -DQWEN3TTS_WERROR="$werror" -DQWEN3TTS_BUILD_BENCH=OFF \
  -DQWEN3TTS_GENERATED_DIR="$(pwd)/build/generated" "${launcher[@]}" >/dev/null
cmake --build "$dir" -j"$(nproc)"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1}
# By default the tests on the real-size 0.6B checkpoint are left out (with their fixture):
# under ASan they would take about as long as all the others on 2 cores, and the tiny
# checkpoints run the same code. Besides the golden cases (real_0_6b, RealGolden) they are the
# batched, frame-weight, mapped-weight and quantized golden tests named below, and the same
# cases at the AVX2 level (golden.avx2_level; the op tests cover every level here). The server tests
# run the sanitized `qwen3tts serve` of this tree (the sanitizer options above reach it through
# node), leaving out the page (headless Chromium) and scale-out (nginx) tests, which test those
# programs more than the server (~40 s under ASan).
# Pass ctest arguments to choose other tests, e.g. -L golden, or -L server for all of those.
if [ $# -eq 0 ]; then
  set -- -L "unit|ops|golden|e2e|server|fuzz" -LE slow \
    -E "real_0_6b|RealGolden|RealCases|^golden\.(FrameWeightBytes|MappedFrameWeights|QuantizedGolden)\.|^golden\.avx2_level$|^fixture\.|^server\.test_(page|scale_out)$" \
    -FA "real_.*"
fi
ctest --test-dir "$dir" --output-on-failure -j"$(nproc)" "$@"
