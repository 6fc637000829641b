#!/usr/bin/env python3
"""Writes OUT/model.onnx: a small CNN (Conv 3->8 3x3, Relu, Flatten, MatMul)
statically quantized by onnxruntime's quantize_static in the operator format
(QuantFormat.QOperator), calibrated on random images: QuantizeLinear,
QLinearConv (with its int32 bias), QLinearMatMul, DequantizeLinear.
`per_channel` quantizes the weights per output channel, else per tensor;
`qdq` writes the QDQ format instead (QuantizeLinear/DequantizeLinear pairs
around float Conv and MatMul). uint8 activations, int8 weights.

usage: static_quantized.py OUT [per_channel] [qdq]"""
import os
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from onnxruntime.quantization import (CalibrationDataReader, QuantFormat,
                                      QuantType, quantize_static)

out = sys.argv[1]
per_channel = "per_channel" in sys.argv[2:]
quant_format = QuantFormat.QDQ if "qdq" in sys.argv[2:] else QuantFormat.QOperator
rng = np.random.default_rng(7)
inits = [numpy_helper.from_array(rng.normal(0, 0.3, (8, 3, 3, 3)).astype(np.float32), "w"),
         numpy_helper.from_array(rng.normal(0, 0.1, 8).astype(np.float32), "b"),
         numpy_helper.from_array(rng.normal(0, 0.05, (8 * 6 * 6, 10)).astype(np.float32), "m")]
nodes = [helper.make_node("Conv", ["x", "w", "b"], ["h"], name="conv", kernel_shape=[3, 3]),
         helper.make_node("Relu", ["h"], ["r"], name="relu"),
         helper.make_node("Flatten", ["r"], ["f"], name="flatten"),
         helper.make_node("MatMul", ["f", "m"], ["y"], name="matmul")]
graph = helper.make_graph(
    nodes, "cnn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 3, 8, 8])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 10])], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
model.ir_version = 8


class Images(CalibrationDataReader):
    def __init__(self):
        self.batches = iter([{"x": rng.normal(0, 1, (2, 3, 8, 8)).astype(np.float32)}
                             for _ in range(4)])

    def get_next(self):
        return next(self.batches, None)


os.makedirs(out, exist_ok=True)
with tempfile.TemporaryDirectory() as tmp:
    float_path = os.path.join(tmp, "float.onnx")
    onnx.save(model, float_path)
    quantize_static(float_path, os.path.join(out, "model.onnx"), Images(),
                    quant_format=quant_format, per_channel=per_channel,
                    activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                    op_types_to_quantize=["Conv", "MatMul"])
