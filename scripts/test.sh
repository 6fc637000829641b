#!/usr/bin/env bash
# The whole test suite on a fresh machine: installs what is missing, builds,
# then runs the lit suite (IR tests, the 15 shared models through import,
# round-trip, export and onnxruntime, the malformed-model corpus, the fuzz
# smoke run) and the GoogleTest unit tests through ctest. The last line is
# ctest's summary.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
bash "$root/scripts/setup.sh" --test
# The layering of docs/architecture.md's table, before spending a build.
"$root/.venv/bin/python" "$root/scripts/check-layers.py" "$root"
bash "$root/scripts/build.sh" "$@"
cd "$build"
# lit first, so its per-suite summary is in the log; then the rest of ctest
# (GoogleTest, docs, install check), whose summary line closes the output.
status=0
/usr/lib/llvm-22/bin/lit -sv "$build/test" || status=$?
ctest --output-on-failure -j "$(nproc)" -E '^lit$' || status=$?
exit "$status"
