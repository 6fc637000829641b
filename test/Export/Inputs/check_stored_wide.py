#!/usr/bin/env python3
"""Checks test/Export/matmul-stored-wide.mlir's export: onnx.checker (full
check), the nodes in order (Casts with their source, destination and `to`;
others with their input/output element types), and onnxruntime's output
against a float64 numpy product of the f16-rounded operands, plus the
bias for the Gemm (2e-6 relative: onnxruntime sums the exact f16 products
in f32)."""
import os
import sys

import numpy as np
import onnxruntime as ort
from onnx import numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from exported_nodes import check_and_print  # noqa: E402

path = sys.argv[1]
model = check_and_print(path)


def initializer(name):
    return numpy_helper.to_array(next(i for i in model.graph.initializer if i.name == name))


e, b = initializer("e_f16").astype(np.float64), initializer("b_f16").astype(np.float64)
x = (np.random.default_rng(3).standard_normal((3, 8)) * 2).astype(np.float32)
logits, head = ort.InferenceSession(path, providers=["CPUExecutionProvider"]).run(None, {"x": x})
product = x.astype(np.float16).astype(np.float64) @ e
for name, got, want in (("logits", logits, product), ("head", head, product + b)):
    rel = np.linalg.norm(got - want) / np.linalg.norm(want)
    print(f"{name}: relative error {rel:.2e}",
          "within 2e-6" if got.dtype == np.float32 and rel <= 2e-6 else "OUT OF BOUNDS")
