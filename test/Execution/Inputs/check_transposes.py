#!/usr/bin/env python3
"""Compares transposes.mlir's outputs (OUT/output_*.pb) with numpy.transpose
of the input, exactly."""
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper


def load(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return t.name, numpy_helper.to_array(t)


_, x = load(sys.argv[1])
got = dict(load(os.path.join(sys.argv[2], f"output_{i}.pb")) for i in range(3))
for name, perm in (("unit", (1, 0, 2, 3)), ("blocks", (2, 0, 1, 3)), ("general", (3, 2, 0, 1))):
    same = np.array_equal(got[name], np.transpose(x, perm))
    print(f"{name}: {'ok' if same else 'MISMATCH'}")
