#!/usr/bin/env bash
# Runs every dsmp fuzzer for SECONDS each (default 60) with its seed corpus,
# one after another (FUZZ_JOBS=2: two at a time), after building them
# (scripts/build.sh builds with -DDSMP_BUILD_FUZZERS=ON). The fuzzers:
#   import         the ONNX importer (any bytes as model.onnx)
#   external-path  the external-data location resolver
#   ir             dsmp IR text and MLIR bytecode, as dsmp-opt parses them
#   manifest       an artifact's manifest.txt
#   tensor         the runtime's .pb tensor reader
#   artifact       libdsmprt loading (and running) an artifact whose
#                  manifest.txt is the input
# A crash, sanitizer report or timeout (over 20 s) is minimized and added to
# test/Fuzz/regressions/NAME/, which the default test run replays; the run
# then exits 1. The last lines are a table: runs, coverage, crashes.
#
# usage: scripts/fuzz.sh [SECONDS] [NAME...]
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
seconds="${1:-60}"
shift || true
names=("$@")
[ ${#names[@]} -eq 0 ] && names=(import external-path ir manifest tensor artifact)
jobs="${FUZZ_JOBS:-1}"

bash "$root/scripts/build.sh" >/dev/null || exit 1
work="$(mktemp -d /tmp/dsmp-fuzz.XXXXXX)"
echo "fuzz: $seconds s per fuzzer, work folder $work"

# A real artifact for the loader, and seeds from what the tests hold.
"$build/bin/dsmp-compile" "$root/examples/tiny_cnn/model.onnx" -o "$work/artifact" \
  --shapes-from "$root/examples/tiny_cnn/test_data_set_0" || exit 1
export DSMP_FUZZ_ARTIFACT="$work/artifact"
seeds() {
  local name="$1" dir="$work/seeds/$1"
  mkdir -p "$dir"
  cp "$root/test/Fuzz/regressions/$name/"* "$dir/" 2>/dev/null
  case "$name" in
  import)
    cp "$root/test/Import/malformed/"*.onnx "$dir/"
    cp "$root/examples/tiny_cnn/model.onnx" "$dir/tiny_cnn.onnx" ;;
  ir)
    "$root/.venv/bin/python" - "$root" "$dir" <<'PY'
import os, sys
root, out = sys.argv[1:3]
n = 0
for folder, _, files in os.walk(os.path.join(root, "test")):
    for f in files:
        if f.endswith(".mlir"):
            for chunk in open(os.path.join(folder, f)).read().split("// -----"):
                n += 1
                open(os.path.join(out, f"chunk_{n:04d}.mlir"), "w").write(chunk)
PY
    ;;
  tensor)
    find "$root/examples" "$root/test" -name '*.pb' -size -256k -exec cp {} "$dir/" \; 2>/dev/null
    i=0
    for f in "$root"/../shared/models/*/test_data_set_0/*.pb; do
      [ -f "$f" ] && [ "$(stat -c %s "$f")" -lt 262144 ] && cp "$f" "$dir/shared_$((i++)).pb"
    done ;;
  manifest | artifact)
    cp "$work/artifact/manifest.txt" "$dir/tiny_cnn.txt" ;;
  esac
}

run_one() {
  local name="$1" corpus="$work/corpus/$1" crashes="$work/crashes/$1"
  mkdir -p "$corpus" "$crashes"
  seeds "$name"
  "$build/bin/dsmp-$name-fuzzer" -max_total_time="$seconds" -timeout=20 \
    -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$crashes/" \
    "$corpus" "$work/seeds/$name" >"$work/$name.log" 2>&1
  echo $? >"$work/$name.rc"
}

running=0
for name in "${names[@]}"; do
  if [ ! -x "$build/bin/dsmp-$name-fuzzer" ]; then
    echo "fuzz: no fuzzer '$name'"; exit 2
  fi
  run_one "$name" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
done
wait

status=0
printf '%-14s %8s %10s %9s %8s %8s\n' fuzzer seconds runs "runs/s" cov crashes
for name in "${names[@]}"; do
  log="$work/$name.log"
  runs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | tail -1 | awk '{print $2}')
  cov=$(grep -oE '(DONE|pulse|REDUCE|NEW) +cov: [0-9]+' "$log" | tail -1 | awk '{print $NF}')
  found=$(ls "$work/crashes/$name" 2>/dev/null | wc -l)
  rate=$(( ${runs:-0} / (seconds > 0 ? seconds : 1) ))
  printf '%-14s %8s %10s %9s %8s %8s\n' "$name" "$seconds" "${runs:-?}" "$rate" "${cov:-?}" "$found"
  if [ "$found" -gt 0 ] || [ "$(cat "$work/$name.rc")" != 0 ]; then
    status=1
    for crash in "$work/crashes/$name"/*; do
      [ -f "$crash" ] || continue
      min="$crash.min"
      "$build/bin/dsmp-$name-fuzzer" -minimize_crash=1 -runs=20000 \
        -exact_artifact_path="$min" "$crash" >/dev/null 2>&1 || true
      [ -f "$min" ] || min="$crash"
      cp "$min" "$root/test/Fuzz/regressions/$name/$(basename "$crash")"
      echo "fuzz: $name: $(basename "$crash") added to test/Fuzz/regressions/$name ($(tail -n 30 "$log" | grep -m1 -E 'ERROR|SUMMARY|deadly|timeout' ))"
    done
  fi
done
exit $status
