#!/usr/bin/env python3
"""Writes OUT/model.onnx and two input sets (test_data_set_0/1) for a model
whose error the prediction does not place: `lift` adds 1000 to x (small
values), `above` compares the sum with 1000.1 and `select` takes 1 or 0
by it; `mix` adds a hundredth of the sum's detail (so that the sum has a
continuous use too) and six MatMul/Tanh layers follow.

In f16 (spacing 0.5 near 1000) the sum lands on 1000 or 1000.5, which
flips the comparison for x in (0.1, 0.25), 30 % of the elements, but no gradient crosses
a comparison: the adjoint sees only the small continuous use and predicts
~1e-3. The MatMuls, whose predicted shares are the largest, carry almost
none of it."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
rng = np.random.default_rng(5)
H = 64
inits = [numpy_helper.from_array(np.array(1000.0, np.float32), "offset"),
         numpy_helper.from_array(np.array(1000.1, np.float32), "threshold"),
         numpy_helper.from_array(np.array(1.0, np.float32), "one"),
         numpy_helper.from_array(np.array(0.0, np.float32), "zero"),
         numpy_helper.from_array(np.array(0.01, np.float32), "hundredth")]
nodes = [helper.make_node("Add", ["x", "offset"], ["lifted"], name="lift"),
         helper.make_node("Greater", ["lifted", "threshold"], ["high"], name="above"),
         helper.make_node("Where", ["high", "one", "zero"], ["bits"], name="select"),
         helper.make_node("Sub", ["lifted", "offset"], ["detail"], name="detail"),
         helper.make_node("Mul", ["detail", "hundredth"], ["small"], name="scale"),
         helper.make_node("Add", ["bits", "small"], ["mixed"], name="mix")]
prev = "mixed"
for i in range(6):
    w = rng.normal(0, 1 / np.sqrt(H), (H, H)).astype(np.float32)
    inits.append(numpy_helper.from_array(w, f"w{i}"))
    nodes.append(helper.make_node("MatMul", [prev, f"w{i}"], [f"m{i}"], name=f"matmul{i}"))
    nodes.append(helper.make_node("Tanh", [f"m{i}"], [f"t{i}"], name=f"tanh{i}"))
    prev = f"t{i}"
graph = helper.make_graph(
    nodes, "flipped_threshold", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [8, H])],
    [helper.make_tensor_value_info(prev, TensorProto.FLOAT, [8, H])], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
os.makedirs(out, exist_ok=True)
onnx.save(model, os.path.join(out, "model.onnx"))
for s in range(2):
    folder = os.path.join(out, f"test_data_set_{s}")
    os.makedirs(folder, exist_ok=True)
    x = rng.uniform(0, 0.5, (8, H)).astype(np.float32)
    with open(os.path.join(folder, "input_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(x, "x").SerializeToString())
