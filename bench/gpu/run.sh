#!/usr/bin/env bash
# dsmp on a GPU against PyTorch (issue 25), in two halves:
#
#   bench/gpu/run.sh prepare [OUT]   on the build machine (no GPU): builds the
#       device artifacts (sm_80 code; FP32 and the assigned mixed formats) of
#       every shared model, the GEMMs and the runtime into OUT/partN folders
#       of at most 60 MiB each (default OUT: bench-gpu-out, git-ignored)
#   bench/gpu/run.sh device OUT/partN   on the GPU machine: runs one part
#       (bench/gpu/device.py; results appended to OUT/results.jsonl)
#   bench/gpu/run.sh table OUT       prints the table of times and ratios
#
# With the device tool, carry one part per call, e.g.
#   run(command="bench/gpu/run.sh device bench-gpu-out/part0 && \
#       bench/gpu/run.sh table bench-gpu-out", carry=["bench-gpu-out/part0"])
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
mode="${1:-}"
case "$mode" in
  prepare)
    out="${2:-$root/bench-gpu-out}"
    "$root/scripts/build.sh" >/dev/null
    build="${BUILD_DIR:-$root/build}"
    exec "$root/.venv/bin/python" "$root/bench/gpu/prepare.py" --out "$out" \
      --bin "$build/bin" --lib "$build/lib" --models "$root/../shared/models" \
      "${@:3}" ;;
  device)
    part="${2:?the part folder}"
    python="$(command -v python3)"
    exec "$python" "$root/bench/gpu/device.py" "$part" \
      --results "$(dirname "$part")/results.jsonl" "${@:3}" ;;
  table)
    out="${2:-$root/bench-gpu-out}"
    exec python3 "$root/bench/gpu/table.py" "$out"/results.jsonl ;;
  *)
    sed -n '2,17p' "$0" >&2
    exit 2 ;;
esac
