#!/usr/bin/env bash
# Installs everything, builds, and speaks a sentence with the default model
# (Qwen/Qwen3-TTS-12Hz-0.6B-CustomVoice, downloaded into the Hugging Face cache on first use).
# Any arguments replace the defaults, e.g.:
#   scripts/run.sh --model /path/to/Qwen3-TTS-12Hz-1.7B-CustomVoice --speaker vivian \
#                  --language chinese --text "你好" --out hello.wav
set -euo pipefail
cd "$(dirname "$0")/.."
QWEN3TTS_TARGETS=qwen3tts scripts/build.sh  # the CLI only: no tests, benchmarks, libraries
if [ $# -eq 0 ]; then
  set -- --speaker ryan --language english \
         --text "Hello! This is qwen3tts, speaking on your own machine." --out hello.wav
fi
exec build/qwen3tts speak "$@"
