#!/usr/bin/env bash
# Configures and builds dsmp in build/ (Release, clang-22, Ninja).
# Extra arguments go to cmake, e.g. -DDSMP_ENABLE_SANITIZERS=ON.
# BUILD_DIR overrides the folder.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
cmake -S "$root" -B "$build" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
  -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
  -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
  -DPython3_EXECUTABLE="$root/.venv/bin/python" \
  -DDSMP_BUILD_FUZZERS=ON \
  "$@" >/dev/null
cmake --build "$build" -j "$(nproc)"
