#!/usr/bin/env python3
"""Writes OUT/model.onnx, y = If(ReduceMax(x) > 7, MatMul(x, W) -> Relu,
Neg(x)), and OUT/test_data_set_0 with |x| < 1: the calibration set takes
only the else branch, so nothing measures the then branch's ops."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
rng = np.random.default_rng(3)
w = numpy_helper.from_array(rng.standard_normal((16, 16)).astype(np.float32), "w")
seven = numpy_helper.from_array(np.array(7.0, np.float32), "seven")
y_info = helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 16])
then_branch = helper.make_graph(
    [helper.make_node("MatMul", ["x", "w"], ["p"], name="branch_matmul"),
     helper.make_node("Relu", ["p"], ["t"], name="branch_relu")],
    "then", [], [helper.make_tensor_value_info("t", TensorProto.FLOAT, [4, 16])])
else_branch = helper.make_graph(
    [helper.make_node("Neg", ["x"], ["e"], name="neg")],
    "else", [], [helper.make_tensor_value_info("e", TensorProto.FLOAT, [4, 16])])
nodes = [helper.make_node("ReduceMax", ["x"], ["m"], keepdims=0, name="max"),
         helper.make_node("Greater", ["m", "seven"], ["c"], name="greater"),
         helper.make_node("If", ["c"], ["y"], then_branch=then_branch,
                          else_branch=else_branch, name="if")]
graph = helper.make_graph(nodes, "untaken", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 16])],
                          [y_info], [w, seven])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
onnx.checker.check_model(model)
os.makedirs(os.path.join(out, "test_data_set_0"), exist_ok=True)
onnx.save(model, os.path.join(out, "model.onnx"))
x = rng.uniform(-0.9, 0.9, (4, 16)).astype(np.float32)
with open(os.path.join(out, "test_data_set_0", "input_0.pb"), "wb") as f:
    f.write(numpy_helper.from_array(x, "x").SerializeToString())
