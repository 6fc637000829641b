#!/usr/bin/env python3
"""Writes OUT/model.onnx, y = If(sr == 16000, MatMul(x, w16k), MatMul(x, w8k))
with a 16x16 weight per branch (as silero VAD keeps a network per sample
rate), OUT/test_data_set_0 and _1 at sr = 16000, and OUT/sr8k, the first
set's inputs at sr = 8000."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
rng = np.random.default_rng(5)
weights = [numpy_helper.from_array(rng.standard_normal((16, 16)).astype(np.float32), name)
           for name in ("w16k", "w8k")]
rate = numpy_helper.from_array(np.array(16000, np.int64), "rate")


def branch(name, weight):
    return helper.make_graph(
        [helper.make_node("MatMul", ["x", weight], [name + "_y"], name=name + "_matmul")],
        name, [], [helper.make_tensor_value_info(name + "_y", TensorProto.FLOAT, [4, 16])])


nodes = [helper.make_node("Equal", ["sr", "rate"], ["is16k"], name="is16k"),
         helper.make_node("If", ["is16k"], ["y"], then_branch=branch("at16k", "w16k"),
                          else_branch=branch("at8k", "w8k"), name="by_rate")]
graph = helper.make_graph(
    nodes, "rate_branches",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 16]),
     helper.make_tensor_value_info("sr", TensorProto.INT64, [])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 16])], weights + [rate])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
onnx.checker.check_model(model)
onnx.save(model, os.path.join(out, "model.onnx"))
x = [rng.standard_normal((4, 16)).astype(np.float32) for _ in range(2)]
for folder, xs, sr in (("test_data_set_0", x[0], 16000), ("test_data_set_1", x[1], 16000),
                       ("sr8k", x[0], 8000)):
    os.makedirs(os.path.join(out, folder), exist_ok=True)
    for i, (name, value) in enumerate((("x", xs), ("sr", np.array(sr, np.int64)))):
        with open(os.path.join(out, folder, f"input_{i}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(value, name).SerializeToString())
