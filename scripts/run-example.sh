#!/usr/bin/env bash
# The main job on the bundled example (examples/tiny_cnn, or the model
# folder given as $1): compile the ONNX model ahead of time for x86_64 (and
# AArch64), run the artifact through the runtime on each test data set
# against the reference outputs, and show the IR and per-op summary on the
# way. Installs and builds what is missing first.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
model_dir="$(cd "${1:-$root/examples/tiny_cnn}" && pwd)"
name="$(basename "$model_dir")"
bash "$root/scripts/setup.sh"
bash "$root/scripts/build.sh" >/dev/null
out="$build/example/$name"
mkdir -p "$out"

variants=()
for set in "$model_dir"/test_data_set_*; do variants+=(--shapes-from "$set"); done
echo "== compile $model_dir/model.onnx for x86_64 -> $out/x86_64"
"$build/bin/dsmp-compile" "$model_dir/model.onnx" --target=x86_64 \
  -o "$out/x86_64" "${variants[@]}"
ls -l "$out/x86_64"
sed -n '1,/^ \*\/$/p' "$out/x86_64/model.h"
for set in "$model_dir"/test_data_set_*; do
  echo "== run the artifact on $(basename "$set") vs its reference outputs"
  "$build/bin/dsmprt-run" "$out/x86_64" --inputs "$set" --compare --atol 1e-7
done
if [ -x "$build/aarch64/bin/dsmprt-run" ] && command -v qemu-aarch64 >/dev/null; then
  echo "== compile for aarch64 and run under qemu-aarch64 -cpu max"
  "$build/bin/dsmp-compile" "$model_dir/model.onnx" --target=aarch64 \
    -o "$out/aarch64" "${variants[@]}"
  for set in "$model_dir"/test_data_set_*; do
    qemu-aarch64 -L /usr/aarch64-linux-gnu -cpu max \
      "$build/aarch64/bin/dsmprt-run" "$out/aarch64" --inputs "$set" --compare --atol 1e-7
  done
fi

echo "== import $model_dir/model.onnx -> $out/$name.mlir"
"$build/bin/dsmp-translate" --import-onnx "$model_dir/model.onnx" \
  -o "$out/$name.mlir" --op-summary
echo "== the IR (first lines; large weights live in $name.mlir.weights)"
head -n 12 "$out/$name.mlir"
echo "== export, then onnxruntime on the exported model vs the references"
"$root/.venv/bin/python" "$root/test/models/check_model.py" \
  --bin "$build/bin" --model-dir "$model_dir" --work "$out"

echo "== choose formats for an A100 (sm_80) within a 1e-2 error budget, calibrated on test_data_set_0"
"$build/bin/dsmp-compile" "$model_dir/model.onnx" --target=sm_80 --tolerance=1e-2 \
  --calibration="$model_dir/test_data_set_0" --report="$out/precision.json" \
  --export-onnx="$out/$name.sm_80.onnx" -o "$out/sm_80" "${variants[@]}"
"$root/.venv/bin/python" - "$out/precision.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
for op in report["ops"]:
    print(f"  {op['name'] or op['op_type']:28} {op['op_type']:12} {op['format']:5} {op.get('reason', '')}")
s = report["summary"]
print(f"  16-bit FLOP share {s['low_precision_flop_share']:.1%}, predicted error "
      f"{s['predicted_error']:.2e}, measured {s['measured_error']:.2e}; report: "
      f"{sys.argv[1]} and .html")
PY
"$root/.venv/bin/python" "$root/scripts/ort-export-check.py" "$out/$name.sm_80.onnx" \
  --report "$out/precision.json"
