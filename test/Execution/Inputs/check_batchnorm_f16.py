#!/usr/bin/env python3
"""Checks batchnorm-f16.mlir's outputs (OUT/output_0.pb) for the input
written by the test: (f16(x) - mean) * scale / sqrt(var + eps) + B computed
in float64 from the f16-rounded x and the f32 statistics, rounded to f16; an
element may differ by one f16 ulp where float32 and float64 round a near-tie
apart."""
import sys

import numpy as np
import onnx
from onnx import numpy_helper

t = onnx.TensorProto()
with open(sys.argv[1], "rb") as f:
    t.ParseFromString(f.read())
x = numpy_helper.to_array(t)
t = onnx.TensorProto()
with open(sys.argv[2] + "/output_0.pb", "rb") as f:
    t.ParseFromString(f.read())
y = numpy_helper.to_array(t)

scale = np.array([1.5, 0.5], np.float32).astype(np.float64)[None, :, None, None]
bias = np.array([0.25, -1.0], np.float32).astype(np.float64)[None, :, None, None]
mean = np.array([0.1, -0.2], np.float32).astype(np.float64)[None, :, None, None]
var = np.array([1.0e-6, 4.0], np.float32).astype(np.float64)[None, :, None, None]
eps = float(np.float32(1e-5))
xh = x.astype(np.float16).astype(np.float64)
want = ((xh - mean) * scale / np.sqrt(var + eps) + bias).astype(np.float16)
ulps = np.abs(y.astype(np.float16).view(np.int16).astype(int) - want.view(np.int16).astype(int))
print(f"batchnorm f16: {int(np.sum(ulps > 1))} of {y.size} elements more than one f16 ulp off, "
      f"{int(np.sum(ulps == 0))} exact")
