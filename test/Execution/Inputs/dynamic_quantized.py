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
from onnxruntime.quantization import QuantType, quantize_dynamic

from small_cnn import float_cnn

out = sys.argv[1]
per_channel = len(sys.argv) > 2 and sys.argv[2] == "per_channel"
rng = np.random.default_rng(5)
model = float_cnn(rng, bias_add=True)
os.makedirs(out, exist_ok=True)
with tempfile.TemporaryDirectory() as tmp:
    float_path = os.path.join(tmp, "float.onnx")
    onnx.save(model, float_path)
    quantize_dynamic(float_path, os.path.join(out, "model.onnx"),
                     weight_type=QuantType.QUInt8, per_channel=per_channel)
