#!/usr/bin/env bash
# Installs everything qwen3tts needs to build, test and run on Debian 12, by package name.
set -euo pipefail
packages=(
  build-essential cmake pkg-config git ca-certificates
  libgtest-dev                       # tests
  libpcre2-dev libutf8proc-dev       # tokenizer: pre-tokeniser regex, NFC
  nlohmann-json3-dev                 # config.json, safetensors headers
  libsndfile1-dev libsoxr-dev        # audio formats, resampling
  libcurl4-openssl-dev libssl-dev    # Hugging Face hub downloads, SHA-256
  python3 python3-numpy              # random-weight checkpoints for large-shape tests
  python3-venv python3-setuptools python3-wheel  # the Python package: offline venv install (ctest python.package)
  sox libsox-fmt-all                 # independent audio reader in tests
  clang-15 libfuzzer-15-dev          # sanitizer build (warning-free under clang too), fuzzers
  clang-format                       # formatting check (unit.clang_format)
  libboost-dev                       # qwen3tts serve: Boost.Beast/Asio (header-only)
  libsoundtouch-dev                  # qwen3tts serve: `speed` (time stretch, LGPL-2.1, shared)
  chromium                           # headless browser for the server's page test
  nginx-light                        # the load balancer of the server's scale-out test
)
# The server tests' client runs on node (any packaged node >= 18 will do, so one that is already
# installed, e.g. from another source, is kept).
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then packages+=(nodejs npm); fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The official openai client and the ws WebSocket client (no dependencies either) for the
# server tests (tests/server), pinned, in a folder outside the repository: ctest's
# QWEN3TTS_NODE_MODULES points at it.
node_dir="${QWEN3TTS_NODE_DIR:-$HOME/.cache/qwen3tts/node}"
for pinned in openai@6.30.1 ws@8.18.3; do
  name="${pinned%@*}" version="${pinned##*@}"
  if ! grep -qs "\"version\": \"$version\"" "$node_dir/node_modules/$name/package.json"; then
    mkdir -p "$node_dir"
    # npm trusts only its bundled roots; the system store also holds the CAs an administrator
    # added (a company's TLS proxy), as apt and curl see them.
    npm_ca=()
    [ -f /etc/ssl/certs/ca-certificates.crt ] && npm_ca=(--cafile=/etc/ssl/certs/ca-certificates.crt)
    npm install --prefix "$node_dir" --save-exact --no-audit --no-fund --loglevel=error \
      "${npm_ca[@]}" "$pinned"
  fi
done
