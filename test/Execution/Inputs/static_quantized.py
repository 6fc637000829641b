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
from onnxruntime.quantization import (CalibrationDataReader, QuantFormat,
                                      QuantType, quantize_static)

from small_cnn import float_cnn

out = sys.argv[1]
per_channel = "per_channel" in sys.argv[2:]
quant_format = QuantFormat.QDQ if "qdq" in sys.argv[2:] else QuantFormat.QOperator
rng = np.random.default_rng(7)
model = float_cnn(rng, bias_add=False)


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
                    # 7-bit weights: onnxruntime's u8s8 kernels on CPUs
                    # without VNNI sum pairs of products in saturating int16
                    # (255 * 127 * 2 > 32767) and miss the exact result by up
                    # to 22 levels; the reference must be exact everywhere.
                    reduce_range=True,
                    op_types_to_quantize=["Conv", "MatMul"])
