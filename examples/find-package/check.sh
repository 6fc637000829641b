#!/usr/bin/env bash
# Installs the dsmp build at $1 into a temporary prefix, builds this consumer
# project against it with find_package(DSMP) and runs it on input.mlir; and
# builds a C program against the runtime through pkg-config (dsmprt.pc),
# whose version macro must equal what the library says.
set -euo pipefail
build="$1"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
cmake -S "$here" -B "$work/build" -G Ninja -DCMAKE_CXX_COMPILER=clang++-22 \
  -DCMAKE_PREFIX_PATH="$work/prefix;/usr/lib/llvm-22" >/dev/null
cmake --build "$work/build" >/dev/null
export PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig"
cc -o "$work/runtime-version" "$here/runtime-version.c" $(pkg-config --cflags --libs dsmprt)
"$work/runtime-version" "$(pkg-config --modversion dsmprt)"
"$work/build/count-dsmp-ops" "$here/input.mlir"
