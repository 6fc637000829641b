#!/usr/bin/env python3
"""Imports and exports MODEL with dsmp, then runs the original and the
exported model in onnxruntime on seeded random inputs and requires equal
outputs (max abs difference <= 1e-6 * max |reference|).

usage: ort_roundtrip.py BIN MODEL WORKDIR
"""
import os
import subprocess
import sys

import numpy as np
import onnx
import onnxruntime as ort

bin_dir, model, work = sys.argv[1:4]
os.makedirs(work, exist_ok=True)
mlir = os.path.join(work, "m.mlir")
out = os.path.join(work, "m.onnx")
for cmd in ([f"{bin_dir}/dsmp-translate", "--import-onnx", model, "-o", mlir],
            [f"{bin_dir}/dsmp-translate", "--export-onnx", mlir, "-o", out]):
    subprocess.run(cmd, check=True)
onnx.checker.check_model(out, full_check=True)

rng = np.random.default_rng(0)
ref = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
got = ort.InferenceSession(out, providers=["CPUExecutionProvider"])
feeds = {}
for i in ref.get_inputs():
    shape = [d if isinstance(d, int) else 2 for d in i.shape]
    if i.type == "tensor(float)":
        feeds[i.name] = rng.standard_normal(shape).astype(np.float32)
    elif i.type == "tensor(int64)":
        feeds[i.name] = rng.integers(0, 4, shape).astype(np.int64)
    else:
        sys.exit(f"unsupported input type {i.type}")
expected = ref.run(None, feeds)
actual = got.run(None, feeds)
names = [o.name for o in ref.get_outputs()]
assert names == [o.name for o in got.get_outputs()], "output names differ"
for name, e, a in zip(names, expected, actual):
    scale = max(float(np.max(np.abs(e))), 1e-30)
    err = float(np.max(np.abs(a.astype(np.float64) - e)))
    if e.shape != a.shape or err > 1e-6 * scale:
        sys.exit(f"output {name!r}: shape {a.shape} vs {e.shape}, max abs error {err}")
    print(f"output {name!r} matches ({e.shape})")
