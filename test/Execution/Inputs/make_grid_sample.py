#!/usr/bin/env python3
"""Writes GridSample models (opset 16) for every lowered mode (bilinear,
nearest), padding mode (zeros, border, reflection) and align_corners, one
at opset 20 (mode "linear", that opset's name for bilinear), with
grid points up to 1.6 outside [-1, 1] (reflections more than once), and
onnxruntime's outputs as the reference: make_grid_sample.py DIR ->
DIR/<mode>_<padding>_<align>/model.onnx and test_data_set_0/.
"""
import itertools
import sys

import numpy as np
from onnx import TensorProto, helper

from ort_case import write_case

out = sys.argv[1]
rng = np.random.default_rng(16)
x = rng.standard_normal((2, 3, 5, 7)).astype(np.float32)
grid = rng.uniform(-2.6, 2.6, (2, 4, 6, 2)).astype(np.float32)

cases = [(m, p, a, 16) for m, p, a in itertools.product(
    ["bilinear", "nearest"], ["zeros", "border", "reflection"], [0, 1])]
cases.append(("linear", "reflection", 0, 20))  # GridSample-20's name for bilinear
for mode, padding, align, opset in cases:
    name = f"{mode}_{padding}_{align}"
    node = helper.make_node("GridSample", ["x", "grid"], ["y"], mode=mode,
                            padding_mode=padding, align_corners=align, name="sample")
    y = write_case(out, name, [node], {"x": x, "grid": grid},
                   [("y", TensorProto.FLOAT)], opset=opset)[0]
    print(name, "x".join(map(str, y.shape)))
