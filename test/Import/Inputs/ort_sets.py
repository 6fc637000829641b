#!/usr/bin/env python3
"""Writes one input set per SHAPE (OUT/set_K/input_0.pb, seeded normal
values) for MODEL's single float input, with onnxruntime's outputs
(output_*.pb), for dsmp-run --compare.

usage: ort_sets.py MODEL OUT SHAPE [SHAPE ...]   (SHAPE: 2x4)
"""
import os
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import numpy_helper

model, out, shapes = sys.argv[1], sys.argv[2], sys.argv[3:]
session = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
name = session.get_inputs()[0].name
rng = np.random.default_rng(0)
for k, shape in enumerate(shapes):
    folder = os.path.join(out, f"set_{k}")
    os.makedirs(folder, exist_ok=True)
    x = rng.standard_normal([int(d) for d in shape.split("x")]).astype(np.float32)
    onnx.save_tensor(numpy_helper.from_array(x, name), os.path.join(folder, "input_0.pb"))
    for j, (o, y) in enumerate(zip(session.get_outputs(), session.run(None, {name: x}))):
        onnx.save_tensor(numpy_helper.from_array(np.asarray(y), o.name),
                         os.path.join(folder, f"output_{j}.pb"))
