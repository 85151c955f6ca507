#!/usr/bin/env bash
# Builds the libFuzzer targets (clang-15, ASan + UBSan, see fuzz/ and cmake/fuzzing.cmake) into
# build-fuzz/ and runs each for SECONDS (default 20) over a scratch copy of its seed corpus
# fuzz/corpus/<target>/, as many targets at once as there are cores. Prints one line per target
# (in the order given); exits non-zero when any target crashed,
# leaving the reproducer in build-fuzz/run/<target>/crashes/ and the log next to it.
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-20}
shift || true
all_targets=(fuzz_npy fuzz_safetensors fuzz_voice fuzz_config fuzz_codec_config fuzz_vocab
             fuzz_tokenizer fuzz_text_segments fuzz_audio fuzz_multipart
             fuzz_speech_request)
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=("${all_targets[@]}")

missing=()
for p in clang-15 libfuzzer-15-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if [ ! -f build-fuzz/CMakeCache.txt ]; then
  launcher=()
  command -v ccache >/dev/null &&
    launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  CC=clang-15 CXX=clang++-15 cmake -S . -B build-fuzz -DQWEN3TTS_FUZZ=ON \
    -DQWEN3TTS_BUILD_TESTS=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    "${launcher[@]}" >/dev/null
fi
cmake --build build-fuzz -j"$(nproc)" --target "${targets[@]}"

# Symbolized stack traces in the reports (any LLVM symbolizer will do).
ASAN_SYMBOLIZER_PATH=$(command -v llvm-symbolizer-15 || command -v llvm-symbolizer-14 ||
                       command -v llvm-symbolizer || true)
export ASAN_SYMBOLIZER_PATH
# Runs one target; its report line goes to build-fuzz/run/<target>/result.
run_target() {
  local t=$1 work=build-fuzz/run/$1 rc=0 execs result
  rm -rf "$work"
  mkdir -p "$work/corpus" "$work/crashes" "$work/tmp"
  cp -r fuzz/corpus/"$t"/. "$work/corpus/"
  TMPDIR=$PWD/$work/tmp UBSAN_OPTIONS=print_stacktrace=1 \
    build-fuzz/fuzz/"$t" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
    -print_final_stats=1 -artifact_prefix="$work/crashes/" "$work/corpus" >"$work/log" 2>&1 ||
    rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log" | tail -1)
  if [ "$rc" -eq 0 ]; then
    result="ok"
  else
    result="CRASH (exit $rc): $(ls "$work/crashes" | head -1), log $work/log"
  fi
  printf '%-20s %4ss %10s executions  %s\n' "$t" "$seconds" "${execs:-?}" "$result" >"$work/result"
  rm -rf "$work/tmp"
}

# Each fuzzer runs on one core: as many at once as there are cores, reported in target order.
jobs=$(nproc)
running=0
for t in "${targets[@]}"; do
  if [ "$running" -ge "$jobs" ]; then
    wait -n || true
    running=$((running - 1))
  fi
  run_target "$t" &
  running=$((running + 1))
done
wait
failed=0
for t in "${targets[@]}"; do
  cat "build-fuzz/run/$t/result"
  grep -q "  ok$" "build-fuzz/run/$t/result" || failed=1
done
exit $failed
