#!/usr/bin/env bash
# Installs the Debian packages, then configures and builds qwen3tts (Release) into build/.
# Extra arguments go to cmake's configure step (e.g. -DQWEN3TTS_WERROR=ON). QWEN3TTS_TARGETS
# (space-separated) builds only those targets instead of everything.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" "$@" >/dev/null
targets=()
for t in ${QWEN3TTS_TARGETS:-}; do targets+=(--target "$t"); done
cmake --build build -j"$(nproc)" "${targets[@]}"
