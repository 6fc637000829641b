#!/usr/bin/env python3
"""Writes GridSample models (opset 16) for every lowered mode (bilinear,
nearest), padding mode (zeros, border, reflection) and align_corners, one
at opset 20 (mode "linear", that opset's name for bilinear), with
grid points up to 1.6 outside [-1, 1] (reflections more than once), and
onnxruntime's outputs as the reference: make_grid_sample.py DIR ->
DIR/<mode>_<padding>_<align>/model.onnx and test_data_set_0/.
"""
import itertools
import os
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

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
    graph = helper.make_graph(
        [node], name,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape),
         helper.make_tensor_value_info("grid", TensorProto.FLOAT, grid.shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    case = os.path.join(out, name)
    data = os.path.join(case, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    onnx.save(model, os.path.join(case, "model.onnx"))
    y = ort.InferenceSession(os.path.join(case, "model.onnx"),
                             providers=["CPUExecutionProvider"]).run(None, {"x": x, "grid": grid})[0]
    for k, (n, a) in enumerate([("x", x), ("grid", grid)]):
        with open(os.path.join(data, f"input_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(a, n).SerializeToString())
    with open(os.path.join(data, "output_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(y, "y").SerializeToString())
    print(name, "x".join(map(str, y.shape)))
