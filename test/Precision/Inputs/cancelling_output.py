#!/usr/bin/env python3
"""Writes OUT/model.onnx, y = Relu(MatMul(x, W)) and z = y - C with C the
exact value of y on OUT/test_data_set_0's input, so z is exactly zero in
FP32.

x and W hold small integers and y's are integers in (2048, 4096): FP32
computes them exactly in any summation order, while f16, whose spacing
there is 2, rounds the odd ones (about half) by 1. So a 16-bit MatMul and
Relu make z nonzero: relative to zero that is infinite; against an error
floor it is an absolute RMS error of about 0.7. (The Relu, an identity
here, holds the product in f16: a 16-bit MatMul whose product is only
widened stores it in f32 unrounded.)"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
rng = np.random.default_rng(11)
x = rng.integers(2, 6, (4, 32)).astype(np.float32)
w = rng.integers(20, 40, (32, 16)).astype(np.float32)
y = (x.astype(np.int64) @ w.astype(np.int64)).astype(np.float32)
assert y.min() > 2048 and y.max() < 4096
nodes = [helper.make_node("MatMul", ["x", "w"], ["p"], name="matmul"),
         helper.make_node("Relu", ["p"], ["y"], name="relu"),
         helper.make_node("Sub", ["y", "c"], ["z"], name="cancel")]
graph = helper.make_graph(
    nodes, "cancelling", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 32])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 16]),
     helper.make_tensor_value_info("z", TensorProto.FLOAT, [4, 16])],
    [numpy_helper.from_array(w, "w"), numpy_helper.from_array(y, "c")])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
os.makedirs(os.path.join(out, "test_data_set_0"), exist_ok=True)
onnx.save(model, os.path.join(out, "model.onnx"))
with open(os.path.join(out, "test_data_set_0", "input_0.pb"), "wb") as f:
    f.write(numpy_helper.from_array(x, "x").SerializeToString())
# The same input with FP32's outputs (z all zero), for dsmprt-run --compare.
os.makedirs(os.path.join(out, "reference"), exist_ok=True)
for name, a in [("input_0", (x, "x")), ("output_0", (y, "y")),
                ("output_1", (np.zeros_like(y), "z"))]:
    with open(os.path.join(out, "reference", name + ".pb"), "wb") as f:
        f.write(numpy_helper.from_array(*a).SerializeToString())
