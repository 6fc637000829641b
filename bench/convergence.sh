#!/usr/bin/env bash
# The seed's convergence claim measured: a small ViT on the digits from 20
# seeds in FP32, naive FP16, FP16 with a static scale, FP16 with the dynamic
# scaler and the per-layer fallback, and torch autocast(fp16) + GradScaler
# (see bench/convergence.py): builds first.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/build.sh" >/dev/null
build="${BUILD_DIR:-$root/build}"
PYTHONPATH="$build/python" exec "$root/.venv/bin/python" "$root/bench/convergence.py" \
  --models "$root/../shared/models" "$@"
