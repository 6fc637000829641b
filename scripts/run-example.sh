#!/usr/bin/env bash
# The main job on the bundled example (examples/tiny_cnn, or the model
# folder given as $1): import the ONNX model into dsmp IR, print a per-op
# summary, export it back to ONNX and check that onnxruntime gives the
# reference outputs. Installs and builds what is missing first.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
model_dir="$(cd "${1:-$root/examples/tiny_cnn}" && pwd)"
name="$(basename "$model_dir")"
bash "$root/scripts/setup.sh"
bash "$root/scripts/build.sh" >/dev/null
out="$build/example/$name"
mkdir -p "$out"

echo "== import $model_dir/model.onnx -> $out/$name.mlir"
"$build/bin/dsmp-translate" --import-onnx "$model_dir/model.onnx" \
  -o "$out/$name.mlir" --op-summary
echo "== the IR (first lines; large weights live in $name.mlir.weights)"
head -n 12 "$out/$name.mlir"
echo "== export, then onnxruntime on the exported model vs the references"
"$root/.venv/bin/python" "$root/test/models/check_model.py" \
  --bin "$build/bin" --model-dir "$model_dir" --work "$out"
