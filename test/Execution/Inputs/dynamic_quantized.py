#!/usr/bin/env python3
"""Writes OUT/model.onnx: a small CNN (Conv 3->8 3x3, Relu, Flatten, MatMul,
Add) dynamically quantized by onnxruntime's quantize_dynamic, as its users
make int8 CPU models: DynamicQuantizeLinear, ConvInteger, MatMulInteger,
Cast and Mul by the scales. `per_channel` quantizes the weights per output
channel (zero points [8] for the Conv, [10] for the MatMul), else per
tensor. uint8 weights either way.

usage: dynamic_quantized.py OUT [per_channel]"""
import os
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from onnxruntime.quantization import QuantType, quantize_dynamic

out = sys.argv[1]
per_channel = len(sys.argv) > 2 and sys.argv[2] == "per_channel"
rng = np.random.default_rng(5)
inits = [numpy_helper.from_array(rng.normal(0, 0.3, (8, 3, 3, 3)).astype(np.float32), "w"),
         numpy_helper.from_array(rng.normal(0, 0.1, 8).astype(np.float32), "b"),
         numpy_helper.from_array(rng.normal(0, 0.05, (8 * 6 * 6, 10)).astype(np.float32), "m"),
         numpy_helper.from_array(rng.normal(0, 0.1, 10).astype(np.float32), "c")]
nodes = [helper.make_node("Conv", ["x", "w", "b"], ["h"], name="conv", kernel_shape=[3, 3]),
         helper.make_node("Relu", ["h"], ["r"], name="relu"),
         helper.make_node("Flatten", ["r"], ["f"], name="flatten"),
         helper.make_node("MatMul", ["f", "m"], ["p"], name="matmul"),
         helper.make_node("Add", ["p", "c"], ["y"], name="bias")]
graph = helper.make_graph(
    nodes, "cnn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 3, 8, 8])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 10])], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
model.ir_version = 8
os.makedirs(out, exist_ok=True)
with tempfile.TemporaryDirectory() as tmp:
    float_path = os.path.join(tmp, "float.onnx")
    onnx.save(model, float_path)
    quantize_dynamic(float_path, os.path.join(out, "model.onnx"),
                     weight_type=QuantType.QUInt8, per_channel=per_channel)
