#!/usr/bin/env python3
"""Writes OUT/model.onnx, an affine grid as torch's dynamo exporter writes
one: y = ReduceSum(Mul(G, t), axis 2) with a constant base grid G of shape
[784, 3, 1] and the input t of shape [1, 1, 3, 2], and OUT/test_data_set_0.
The Mul broadcasts both operands into a [1, 784, 3, 2] product (18816
bytes in f32) that the ReduceSum (f32 by policy) reads; in FP32 the peak is
that product and the [1, 784, 2] sum: 25088 bytes."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
rng = np.random.default_rng(5)
xs, ys = np.meshgrid(np.linspace(-1, 1, 28), np.linspace(-1, 1, 28))
grid = np.stack([xs.ravel(), ys.ravel(), np.ones(784)], 1).reshape(784, 3, 1)
nodes = [helper.make_node("Mul", ["grid", "t"], ["p"], name="mul"),
         helper.make_node("ReduceSum", ["p", "axes"], ["y"], name="sum", keepdims=0)]
graph = helper.make_graph(
    nodes, "affine_grid",
    [helper.make_tensor_value_info("t", TensorProto.FLOAT, [1, 1, 3, 2])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 784, 2])],
    [numpy_helper.from_array(grid.astype(np.float32), "grid"),
     numpy_helper.from_array(np.array([2], np.int64), "axes")])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
os.makedirs(os.path.join(out, "test_data_set_0"), exist_ok=True)
onnx.save(model, os.path.join(out, "model.onnx"))
t = (np.array([[1, 0], [0, 1], [0, 0]]) + 0.1 * rng.standard_normal((3, 2)))
with open(os.path.join(out, "test_data_set_0", "input_0.pb"), "wb") as f:
    f.write(numpy_helper.from_array(t.reshape(1, 1, 3, 2).astype(np.float32), "t")
            .SerializeToString())
