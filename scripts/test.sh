#!/usr/bin/env bash
# Installs everything, builds, and runs the whole test suite (ctest). Tests labelled "slow"
# (fast-vs-reference checks on real-size 0.6B/1.7B checkpoints) run with: scripts/test.sh -L slow
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
if [ $# -eq 0 ]; then set -- -LE slow; fi
ctest --test-dir build --output-on-failure -j"$(nproc)" "$@"
