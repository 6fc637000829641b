#!/usr/bin/env python3
"""Writes a small classifier with an LRN (no gradient model in dsmp)
between its first convolution's weights and the loss: Conv -> LRN ->
Flatten -> Gemm.

    make_lrn_model.py OUT.onnx
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(0)
w = numpy_helper.from_array(rng.standard_normal((4, 1, 3, 3)).astype(np.float32), "conv.weight")
fc = numpy_helper.from_array(rng.standard_normal((3, 4 * 6 * 6)).astype(np.float32), "fc.weight")
graph = helper.make_graph(
    [helper.make_node("Conv", ["image", "conv.weight"], ["c"], name="conv"),
     helper.make_node("LRN", ["c"], ["n"], name="the_lrn", size=3),
     helper.make_node("Flatten", ["n"], ["f"], name="flatten"),
     helper.make_node("Gemm", ["f", "fc.weight"], ["logits"], name="fc", transB=1)],
    "lrn", [helper.make_tensor_value_info("image", TensorProto.FLOAT, ["batch", 1, 8, 8])],
    [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 3])],
    initializer=[w, fc])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
onnx.checker.check_model(model)
onnx.save(model, sys.argv[1])
