#!/usr/bin/env python3
"""Checks test/Export/widen-unsupported-types.mlir's export: onnx.checker,
the nodes in order (op, name, input/output element types; Casts with their
source, destination and `to`), and onnxruntime's outputs against a float64
numpy convolution of the rounded operands (bf16 conv: rounded to bf16, one
bf16 ulp allowed for a tie the two f32/f64 sums break differently; f16 conv:
the max error within 2e-3 of the largest output: onnxruntime's CPU
computes it in f32 and rounds)."""
import os
import sys

import ml_dtypes
import numpy as np
import onnxruntime as ort
from onnx import numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from exported_nodes import check_and_print  # noqa: E402

path = sys.argv[1]
model = check_and_print(path)

weights = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
w = weights["w_bf16"].astype(np.float64)
b = weights["b_bf16"].astype(np.float64)
rng = np.random.default_rng(7)
x = (rng.standard_normal((1, 2, 5, 5)) * 3).astype(np.float32)
options = ort.SessionOptions()
options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
y, h = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"]).run(
    None, {"x": x})


def conv(xr, wr):
    out = np.zeros((1, 3, 3, 3))
    for m in range(3):
        for i in range(3):
            for j in range(3):
                out[0, m, i, j] = np.sum(xr[0, :, i:i + 3, j:j + 3] * wr[m])
    return out


xb = x.astype(ml_dtypes.bfloat16).astype(np.float64)
want = ((conv(xb, w) + b[None, :, None, None]).astype(np.float32)
        .astype(ml_dtypes.bfloat16).astype(np.float32).transpose(0, 1, 3, 2))
ulp = np.abs(want.astype(ml_dtypes.bfloat16).astype(np.float64)) * 2.0 ** -7
ulp = np.maximum(ulp, 2.0 ** -133)
off = int(np.sum(np.abs(y.astype(np.float64) - want) > ulp))
print(f"bf16 conv: {off} of {want.size} elements more than one bf16 ulp off")

xh = x.astype(np.float16).astype(np.float64)
wh = w.astype(np.float16).astype(np.float64)
ref = conv(xh, wh)
rel = float(np.max(np.abs(h - ref)) / np.max(np.abs(ref)))
print(f"f16 conv: max error relative to the largest output {rel:.1e}"
      + (" within 2e-3" if rel <= 2e-3 else " OVER 2e-3"))
