#!/usr/bin/env python3
"""Write one TensorProto file: write_tensor.py FILE NAME DIMS VALUES [DTYPE].

DIMS is like 2x4 ('scalar' for rank 0); VALUES is a comma-separated list
(or 'seed:N' for normally distributed values from numpy's generator seeded
with N); DTYPE is a numpy dtype name, float32 by default.
"""
import sys

import numpy as np
from onnx import numpy_helper

path, name, dims, values = sys.argv[1:5]
dtype = sys.argv[5] if len(sys.argv) > 5 else "float32"
shape = [] if dims == "scalar" else [int(d) for d in dims.split("x")]
if values.startswith("seed:"):
    data = np.random.default_rng(int(values[5:])).standard_normal(shape)
else:
    data = np.array([float(v) for v in values.split(",")]).reshape(shape)
tensor = numpy_helper.from_array(data.astype(dtype), name)
with open(path, "wb") as f:
    f.write(tensor.SerializeToString())
