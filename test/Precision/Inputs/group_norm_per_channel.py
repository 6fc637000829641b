#!/usr/bin/env python3
"""Writes OUT/model.onnx, y = GroupNormalization(x * k) with one group per
channel (opset 21: InstanceNormalization's math; k a per-channel constant),
and OUT/cal/input_0.pb. GroupNormalization has no VJP model, so the
sensitivity of the Mul before it comes from the forward estimate."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
rng = np.random.default_rng(3)
shape = [1, 4, 4, 4]
k = numpy_helper.from_array(rng.uniform(0.5, 2.0, (1, 4, 1, 1)).astype(np.float32), "k")
scale = numpy_helper.from_array(rng.uniform(0.5, 1.5, 4).astype(np.float32), "scale")
bias = numpy_helper.from_array(rng.uniform(-0.5, 0.5, 4).astype(np.float32), "bias")
nodes = [helper.make_node("Mul", ["x", "k"], ["a"], name="mul"),
         helper.make_node("GroupNormalization", ["a", "scale", "bias"], ["y"],
                          name="norm", epsilon=1e-5, num_groups=4)]
graph = helper.make_graph(nodes, "instance_norm",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)],
                          [k, scale, bias])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
os.makedirs(os.path.join(out, "cal"), exist_ok=True)
onnx.save(model, os.path.join(out, "model.onnx"))
x = rng.standard_normal(shape).astype(np.float32)
with open(os.path.join(out, "cal", "input_0.pb"), "wb") as f:
    f.write(numpy_helper.from_array(x, "x").SerializeToString())
