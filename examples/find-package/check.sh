#!/usr/bin/env bash
# Installs the dsmp build at $1 into a temporary prefix, builds this consumer
# project against it with find_package(DSMP) and runs it on input.mlir.
set -euo pipefail
build="$1"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
cmake -S "$here" -B "$work/build" -G Ninja -DCMAKE_CXX_COMPILER=clang++-22 \
  -DCMAKE_PREFIX_PATH="$work/prefix;/usr/lib/llvm-22" >/dev/null
cmake --build "$work/build" >/dev/null
"$work/build/count-dsmp-ops" "$here/input.mlir"
