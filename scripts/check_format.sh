#!/usr/bin/env bash
# Fails when a C/C++ source differs from what clang-format (Debian 12's, .clang-format) makes of
# it; prints the offending places. Run by ctest (unit.clang_format). To fix:
#   find src include tools tests bench fuzz -name '*.[ch]pp' -o -name '*.h' | xargs clang-format -i
set -euo pipefail
cd "$(dirname "$0")/.."
find src include tools tests bench fuzz \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' \) \
  -not -path 'tests/data/*' -print0 | sort -z | xargs -0 clang-format --dry-run -Werror
echo "clang-format: clean"
