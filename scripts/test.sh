#!/usr/bin/env bash
# The whole test suite on a fresh machine: installs what is missing, builds,
# then runs the lit suite (IR tests, the 15 shared models through import,
# round-trip, export and onnxruntime, the malformed-model corpus, the fuzz
# smoke run) and the GoogleTest unit tests through ctest. The last line is
# ctest's summary.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
bash "$root/scripts/setup.sh"
bash "$root/scripts/build.sh" "$@"
cd "$build"
ctest --output-on-failure -j "$(nproc)"
