#!/usr/bin/env bash
# dsmp against onnxruntime on the CPU (see bench/cpu.py): builds first.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/build.sh" >/dev/null
build="${BUILD_DIR:-$root/build}"
exec "$root/.venv/bin/python" "$root/bench/cpu.py" --bin "$build/bin" \
  --models "$root/../shared/models" "$@"
