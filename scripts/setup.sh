#!/usr/bin/env bash
# Installs what a fresh machine lacks to build and test dsmp: Debian's
# LLVM/MLIR 22, ONNX 1.12, protobuf and GoogleTest, and a Python venv (.venv)
# with onnx and onnxruntime. `--test` adds what only the tests need: torch,
# torchvision, transformers and onnxscript (PyPI's wheels, run on the CPU) to
# export the torch-family, zoo and HuggingFace models (also through torch's
# dynamo exporter), and chromium to open the report page. Safe to run again: it only installs what is missing.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
with_test=0
[ "${1:-}" = "--test" ] && with_test=1

packages=(
  cmake ninja-build pkgconf
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools clang-22 lld-22
  libclang-rt-22-dev
  libonnx-dev libprotobuf-dev protobuf-compiler libonnx-testdata
  libgtest-dev libopenblas-dev libdnnl-dev node-dagre-layout
  gcc-aarch64-linux-gnu g++-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user
)
missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi

venv="$root/.venv"
if [ ! -x "$venv/bin/python" ]; then
  echo "setup: creating $venv"
  python3 -m venv "$venv"
fi
if ! "$venv/bin/python" -c "import numpy, onnx, onnxruntime, ml_dtypes, nanobind" 2>/dev/null; then
  echo "setup: installing Python packages"
  "$venv/bin/python" -m pip install -q --upgrade pip
  "$venv/bin/python" -m pip install -q -r "$root/scripts/requirements.txt"
fi
if ((with_test)) && ! command -v chromium >/dev/null; then
  echo "setup: installing chromium (the report page's headless test)"
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq chromium >/dev/null
fi
if ((with_test)) && ! "$venv/bin/python" -c "import torch, torchvision, transformers, onnxscript" 2>/dev/null; then
  echo "setup: installing torch, torchvision, transformers and onnxscript (test exports; about 5 GB)"
  "$venv/bin/python" -m pip install -q -r "$root/scripts/requirements-test.txt"
fi
echo "setup: done"
