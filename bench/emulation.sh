#!/usr/bin/env bash
# What the host's emulation of a GPU target's formats costs against an FP32
# build (see bench/emulation.py): builds first.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/build.sh" >/dev/null
build="${BUILD_DIR:-$root/build}"
exec "$root/.venv/bin/python" "$root/bench/emulation.py" --bin "$build/bin" \
  --models "$root/../shared/models" "$@"
