#!/usr/bin/env python3
"""Writes OUT/model.onnx (y = MatMul(x, W) + 1, z = Relu(-|x|) = 0) and
OUT/test_data_set_0 whose stored y is corrupt (a NaN among zeros): the
report's error against the stored outputs is NaN, and z is zero in FP32."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
rng = np.random.default_rng(7)
w = numpy_helper.from_array(rng.standard_normal((16, 8)).astype(np.float32), "w")
one = numpy_helper.from_array(np.ones((1,), np.float32), "one")
nodes = [helper.make_node("MatMul", ["x", "w"], ["p"], name="matmul"),
         helper.make_node("Add", ["p", "one"], ["y"], name="add"),
         helper.make_node("Abs", ["x"], ["a"], name="abs"),
         helper.make_node("Neg", ["a"], ["n"], name="neg"),
         helper.make_node("Relu", ["n"], ["z"], name="relu")]
graph = helper.make_graph(nodes, "zero", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 16])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 8]),
                           helper.make_tensor_value_info("z", TensorProto.FLOAT, [4, 16])], [w, one])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
os.makedirs(os.path.join(out, "test_data_set_0"), exist_ok=True)
onnx.save(model, os.path.join(out, "model.onnx"))
x = rng.standard_normal((4, 16)).astype(np.float32)
stored_y = np.zeros((4, 8), np.float32)
stored_y[1, 2] = np.nan
for name, array in [("input_0", numpy_helper.from_array(x, "x")),
                    ("output_0", numpy_helper.from_array(stored_y, "y")),
                    ("output_1", numpy_helper.from_array(np.zeros((4, 16), np.float32), "z"))]:
    with open(os.path.join(out, "test_data_set_0", name + ".pb"), "wb") as f:
        f.write(array.SerializeToString())
