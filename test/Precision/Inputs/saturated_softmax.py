#!/usr/bin/env python3
"""Writes OUT/model.onnx and OUT/test_data_set_0 for class scores as an OCR
recognizer ends: logits z = x + b [2, 64], then a Softmax. Row 0 is
saturated (p = 1 on one class); row 1 is split between two classes (about
0.6 / 0.4), so the output's rounding error is a +-a pair in row 1 alone.

dsmp-analyze-sensitivity seeds its backward pass with random signs r
(std::mt19937 seeded 0x5eed, one sign per output element: its low bit). A
pair's error reaches the estimate as a (r_i - r_j); the two classes are
placed where r_i = r_j, so one seed vector sees almost none of it. x and b
are exact in f16 and their sums are not: rounding z is the only error."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
rows, classes = 2, 64
signs = np.random.RandomState(0x5eed).randint(0, 2**32, size=rows * classes,
                                              dtype=np.uint32) & 1
b = np.float32(2**-9 + 2**-11)
x = np.full((rows, classes), -12.0, np.float32)
x[0, 7] = 12.0


def rounding(v):
    z = np.float32(v) + b
    return float(np.float16(z)) - float(z)


# Two classes of row 1 with equal signs, and logits whose f16 roundings
# differ (the pair's difference is all the softmax sees): 4.5 + b rounds
# up by 3/8 of f16's 2^-8 there, 3.75 + b down by 1/4 of 2^-9.
i, j = [c for c in range(classes) if signs[classes + c] == signs[classes]][:2]
x[1, i], x[1, j] = 4.5, 3.75
assert abs(rounding(x[1, i]) - rounding(x[1, j])) >= 2**-9

nodes = [helper.make_node("Add", ["x", "b"], ["z"], name="logits"),
         helper.make_node("Softmax", ["z"], ["p"], axis=-1, name="probs")]
graph = helper.make_graph(
    nodes, "saturated_softmax",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [rows, classes])],
    [helper.make_tensor_value_info("p", TensorProto.FLOAT, [rows, classes])],
    [numpy_helper.from_array(np.array([b], np.float32), "b")])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
os.makedirs(os.path.join(out, "test_data_set_0"), exist_ok=True)
onnx.save(model, os.path.join(out, "model.onnx"))
z = (x + b).astype(np.float64)
p = np.exp(z - z.max(1, keepdims=True))
p /= p.sum(1, keepdims=True)
for name, value, file in (("x", x, "input_0.pb"), ("p", p.astype(np.float32), "output_0.pb")):
    onnx.save_tensor(numpy_helper.from_array(value, name),
                     os.path.join(out, "test_data_set_0", file))
