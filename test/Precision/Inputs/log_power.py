#!/usr/bin/env python3
"""Writes OUT/model.onnx and two input sets (test_data_set_0/1) for a
log-power spectrogram, as basic-pitch computes one: magnitudes x [8, 64]
spread log-uniformly over [1e-6, 1], `power` = x * x, `guard` adds 1e-10,
`log` and `db` take 10 log10, and a MatMul mixes the bins.

Powers below 2^-14 are f16 subnormals, held on a fixed grid of 2^-24: a
power of 1e-10 rounds to 0 or 6e-8, and the Log turns that into decibels
of error. The relative rounding model does not see it; the sensitivity
analysis' subnormal_error does."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
rng = np.random.default_rng(11)
w = rng.normal(0, 1 / 8, (64, 64)).astype(np.float32)
nodes = [
    helper.make_node("Mul", ["x", "x"], ["p"], name="power"),
    helper.make_node("Add", ["p", "eps"], ["g"], name="guard"),
    helper.make_node("Log", ["g"], ["l"], name="log"),
    helper.make_node("Mul", ["l", "to_db"], ["d"], name="db"),
    helper.make_node("MatMul", ["d", "w"], ["y"], name="mix"),
]
inits = [numpy_helper.from_array(np.array(1e-10, np.float32), "eps"),
         numpy_helper.from_array(np.array(10 / np.log(10), np.float32), "to_db"),
         numpy_helper.from_array(w, "w")]
graph = helper.make_graph(
    nodes, "log_power", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [8, 64])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [8, 64])], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
os.makedirs(out, exist_ok=True)
onnx.save(model, os.path.join(out, "model.onnx"))
for s in range(2):
    folder = os.path.join(out, f"test_data_set_{s}")
    os.makedirs(folder, exist_ok=True)
    x = np.exp(rng.uniform(np.log(1e-6), 0, (8, 64))).astype(np.float32)
    onnx.save_tensor(numpy_helper.from_array(x, "x"), os.path.join(folder, "input_0.pb"))
