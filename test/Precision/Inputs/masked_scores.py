#!/usr/bin/env python3
"""Writes OUT/model.onnx, causal attention on one head (scores = x Wq (x Wk)^T,
plus a -inf mask above the diagonal, Softmax, times x Wv), and
OUT/test_data_set_0."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
rng = np.random.default_rng(11)
seq, width = 6, 16
mask = np.triu(np.full((seq, seq), -np.inf, np.float32), k=1)
inits = [numpy_helper.from_array(rng.standard_normal((width, width)).astype(np.float32) / 4, name)
         for name in ("wq", "wk", "wv")]
inits.append(numpy_helper.from_array(mask, "mask"))
nodes = [helper.make_node("MatMul", ["x", "wq"], ["q"], name="query"),
         helper.make_node("MatMul", ["x", "wk"], ["k"], name="key"),
         helper.make_node("MatMul", ["x", "wv"], ["v"], name="value"),
         helper.make_node("Transpose", ["k"], ["kt"], name="key_t", perm=[1, 0]),
         helper.make_node("MatMul", ["q", "kt"], ["s"], name="scores"),
         helper.make_node("Add", ["s", "mask"], ["masked"], name="masked_scores"),
         helper.make_node("Softmax", ["masked"], ["p"], name="softmax", axis=-1),
         helper.make_node("MatMul", ["p", "v"], ["y"], name="attend")]
graph = helper.make_graph(nodes, "masked", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [seq, width])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [seq, width])], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
os.makedirs(os.path.join(out, "test_data_set_0"), exist_ok=True)
onnx.save(model, os.path.join(out, "model.onnx"))
x = rng.standard_normal((seq, width)).astype(np.float32)
with open(os.path.join(out, "test_data_set_0", "input_0.pb"), "wb") as f:
    f.write(numpy_helper.from_array(x, "x").SerializeToString())
