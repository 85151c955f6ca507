#!/usr/bin/env bash
# Writes a random-weight checkpoint of a released layout into DIR unless a complete one of the
# same arguments is already there (tests and benchmarks use it; it is never committed).
# Debian's python3 and python3-numpy (scripts/install-deps.sh), whatever other python3 is first
# on PATH.
#   scripts/ensure-checkpoint.sh DIR VARIANT SIZE DTYPE SEED
set -euo pipefail
dir=$1 variant=$2 size=$3 dtype=$4 seed=$5
here=$(cd "$(dirname "$0")" && pwd)
# A checkpoint made with other arguments (another seed: the golden tests fail on it) is remade.
if [ -f "$dir/model.safetensors" ] && [ -f "$dir/speech_tokenizer/model.safetensors" ] &&
  /usr/bin/python3 - "$dir/checkpoint_manifest.json" "$variant" "$size" "$dtype" "$seed" <<'PY'
import json, sys
try:
    a = json.load(open(sys.argv[1]))["args"]
except (OSError, ValueError, KeyError):
    sys.exit(1)
sys.exit(0 if [a.get("variant"), a.get("size"), a.get("dtype"), str(a.get("seed"))] == sys.argv[2:]
         else 1)
PY
then
  exit 0
fi
rm -rf "$dir"
mkdir -p "$(dirname "$dir")"
QWEN_VOCAB_DIR="$here/../tests/data/models/tiny-custom_voice" \
  /usr/bin/python3 "$here/make_checkpoint.py" --variant "$variant" --size "$size" --dtype "$dtype" \
  --seed "$seed" --out "$dir.partial"
mv "$dir.partial" "$dir"
