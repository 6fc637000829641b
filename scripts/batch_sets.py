#!/usr/bin/env python3
"""Writes OUT/b<N>/ input sets of MODEL at each batch size N (the first dim
of every input whose first dim is dynamic), with onnxruntime's outputs, in
the test_data_set layout.

Each sample is a row of the stored inputs in STORED (a test_data_set
folder): float rows with noise added, integer rows (token ids, masks) with
their elements shuffled, so the samples differ and stay valid for the
model.

usage: batch_sets.py MODEL STORED OUT N [N ...]"""
import glob
import os
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import numpy_helper

model, stored, out = sys.argv[1:4]
sizes = [int(n) for n in sys.argv[4:]]
rng = np.random.default_rng(7)
graph = onnx.load(model, load_external_data=False).graph
initializers = {i.name for i in graph.initializer}
inputs = [i for i in graph.input if i.name not in initializers]
rows = {}
for path in sorted(glob.glob(os.path.join(stored, "input_*.pb"))):
    tensor = onnx.TensorProto()
    with open(path, "rb") as f:
        tensor.ParseFromString(f.read())
    rows[tensor.name] = numpy_helper.to_array(tensor)
session = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
for n in sizes:
    folder = os.path.join(out, f"b{n}")
    os.makedirs(folder, exist_ok=True)
    feeds = {}
    for k, info in enumerate(inputs):
        base = rows[info.name]
        dims = info.type.tensor_type.shape.dim
        if dims and not dims[0].HasField("dim_value"):
            picked = base[rng.integers(0, base.shape[0], n)]
            if np.issubdtype(picked.dtype, np.floating):
                scale = float(np.std(base)) or 1.0
                picked = picked + rng.normal(0, 0.1 * scale, picked.shape).astype(picked.dtype)
            else:
                picked = np.stack([rng.permutation(row.ravel()).reshape(row.shape)
                                   for row in picked])
        else:
            picked = base
        feeds[info.name] = picked
        with open(os.path.join(folder, f"input_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(picked, info.name).SerializeToString())
    for k, (info, value) in enumerate(zip(session.get_outputs(), session.run(None, feeds))):
        with open(os.path.join(folder, f"output_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(value, info.name).SerializeToString())
