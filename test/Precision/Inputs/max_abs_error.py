#!/usr/bin/env python3
"""max |output - stored output| over every element of a run's outputs.

usage: max_abs_error.py REFERENCE_SET RELAXED_OUTPUTS BOUNDED_OUTPUTS
Prints, for the first folder of outputs, whether its error exceeds 1e-2,
and for the second whether it stays within 1e-2 + 1e-4."""
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper


def read(folder):
    out = {}
    for name in sorted(os.listdir(folder)):
        if name.startswith("output_") and name.endswith(".pb"):
            t = onnx.TensorProto()
            with open(os.path.join(folder, name), "rb") as f:
                t.ParseFromString(f.read())
            out[t.name] = numpy_helper.to_array(t).astype(np.float64)
    return out


reference = read(sys.argv[1])


def error(folder):
    got = read(folder)
    return max(float(np.max(np.abs(got[k] - v))) for k, v in reference.items())


relaxed, bounded = error(sys.argv[2]), error(sys.argv[3])
print(f"{os.path.basename(sys.argv[2])}: max abs error {relaxed:.3e} over 1e-2: {relaxed > 1e-2}")
print(f"{os.path.basename(sys.argv[3])}: max abs error {bounded:.3e} within 1e-2 + 1e-4: "
      f"{bounded <= 1e-2 + 1e-4}")
