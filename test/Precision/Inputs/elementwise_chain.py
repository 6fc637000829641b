#!/usr/bin/env python3
"""Writes OUT/model.onnx, y = Sigmoid(Abs(Neg(Relu(x)))) on x of shape
[1, 1024], and OUT/test_data_set_0 with one input: four f32 intermediates
of 4096 bytes, at most two of them live at once."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
nodes = [helper.make_node("Relu", ["x"], ["r"], name="relu"),
         helper.make_node("Neg", ["r"], ["n"], name="neg"),
         helper.make_node("Abs", ["n"], ["a"], name="abs"),
         helper.make_node("Sigmoid", ["a"], ["y"], name="sigmoid")]
graph = helper.make_graph(nodes, "chain", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1024])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1024])])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
os.makedirs(os.path.join(out, "test_data_set_0"), exist_ok=True)
onnx.save(model, os.path.join(out, "model.onnx"))
x = np.random.default_rng(3).standard_normal((1, 1024)).astype(np.float32)
with open(os.path.join(out, "test_data_set_0", "input_0.pb"), "wb") as f:
    f.write(numpy_helper.from_array(x, "x").SerializeToString())
