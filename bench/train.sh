#!/usr/bin/env bash
# Training step time, dsmp against torch eager on the same model, batch and
# thread count (see bench/train.py): builds first.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/build.sh" >/dev/null
build="${BUILD_DIR:-$root/build}"
PYTHONPATH="$build/python" exec "$root/.venv/bin/python" "$root/bench/train.py" \
  --models "$root/../shared/models" "$@"
