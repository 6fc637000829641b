#!/usr/bin/env python3
"""Writes OUT/model.onnx and two input sets (test_data_set_0/1) for a model
whose error is in the rounding of a graph input: x holds values near 1000
with unit detail, `centre` subtracts 1000, and six MatMul/Tanh layers
follow.

In f16 (spacing 0.5 near 1000) rounding x before the Sub loses a quarter of
the detail (about 20 % relative error after it). That rounding is no op's
output rounding: the Sub's operand_energy (the adjoint keeps the gradient
of a graph input a compute op reads) predicts it."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
rng = np.random.default_rng(5)
H = 64
inits = [numpy_helper.from_array(np.array(1000.0, np.float32), "offset")]
nodes = [helper.make_node("Sub", ["x", "offset"], ["d"], name="centre")]
prev = "d"
for i in range(6):
    w = rng.normal(0, 1 / np.sqrt(H), (H, H)).astype(np.float32)
    inits.append(numpy_helper.from_array(w, f"w{i}"))
    nodes.append(helper.make_node("MatMul", [prev, f"w{i}"], [f"m{i}"], name=f"matmul{i}"))
    nodes.append(helper.make_node("Tanh", [f"m{i}"], [f"t{i}"], name=f"tanh{i}"))
    prev = f"t{i}"
graph = helper.make_graph(
    nodes, "offset_input", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [8, H])],
    [helper.make_tensor_value_info(prev, TensorProto.FLOAT, [8, H])], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
os.makedirs(out, exist_ok=True)
onnx.save(model, os.path.join(out, "model.onnx"))
for s in range(2):
    folder = os.path.join(out, f"test_data_set_{s}")
    os.makedirs(folder, exist_ok=True)
    x = (1000 + rng.normal(0, 1, (8, H))).astype(np.float32)
    with open(os.path.join(folder, "input_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(x, "x").SerializeToString())
