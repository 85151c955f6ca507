#!/usr/bin/env bash
# Installs everything, builds, and runs the whole test suite (ctest), then the same tests again
# in a clang AddressSanitizer + UndefinedBehaviorSanitizer build (scripts/sanitize.sh), where
# every libFuzzer target also replays its seed corpus (to fuzz: scripts/fuzz.sh). Tests labelled
# "slow" (fast-vs-reference checks on real-size 0.6B/1.7B checkpoints) run with:
# scripts/test.sh -L slow (arguments go to ctest, and the sanitizer pass is skipped).
# With CI=true, compiler warnings are errors.
set -euo pipefail
cd "$(dirname "$0")/.."
werror=OFF
if [ "${CI:-}" = true ]; then werror=ON; fi
scripts/build.sh -DQWEN3TTS_WERROR="$werror"
if [ $# -gt 0 ]; then
  exec ctest --test-dir build --output-on-failure -j"$(nproc)" "$@"
fi
ctest --test-dir build --output-on-failure -j"$(nproc)" -LE slow
scripts/sanitize.sh address,undefined
