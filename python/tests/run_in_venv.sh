#!/usr/bin/env bash
# The ctest `python.package`: installs the package the documented way (a venv of the system
# python3 with its site packages, `pip install --no-build-isolation --no-index`, nothing from
# the network) and runs its tests there against the built library and CLI.
#   run_in_venv.sh PYTHON3 WORK_DIR CHECKOUT LIBRARY CLI TEST_DATA
set -euo pipefail
python=$1 work=$2 checkout=$3 library=$4 cli=$5 data=$6

"$python" -c 'import numpy, setuptools, venv' || {
  echo "python.package: $python lacks numpy, setuptools or venv (scripts/install-deps.sh)" >&2
  exit 1
}
rm -rf "$work"
mkdir -p "$work"
# A copy, so that pip's in-tree build writes nothing into the checkout.
cp -r "$checkout/python" "$work/src"
rm -rf "$work/src/build" "$work/src"/*.egg-info
"$python" -m venv --system-site-packages "$work/venv"
"$work/venv/bin/python" -m pip install --quiet --no-build-isolation --no-index "$work/src"

cd "$work"  # not the source tree: the tests must import the installed package
"$work/venv/bin/python" - <<'PY'
import qwen3tts, sys
assert "site-packages" in qwen3tts.__file__, qwen3tts.__file__
PY
export QWEN3TTS_LIBRARY=$library QWEN3TTS_CLI=$cli QWEN3TTS_TEST_DATA=$data
export QWEN3TTS_TEST_TMP=$work/tmp PYTHONDONTWRITEBYTECODE=1
exec "$work/venv/bin/python" -m unittest discover -v -s "$checkout/python/tests" \
  -t "$checkout/python/tests"
