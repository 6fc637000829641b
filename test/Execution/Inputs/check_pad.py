"""Compares dsmp-run's Pad outputs (output_K.pb in a folder) with numpy.pad
on the same input: exact (it only moves elements)."""
import sys

import numpy as np
import onnx
from onnx import numpy_helper

x = np.arange(1, 7, dtype=np.float32).reshape(2, 3)
widths = ((1, 1), (2, 2))
expected = [np.pad(x, widths, mode="constant", constant_values=-5.0),
            np.pad(x, widths, mode="edge"), np.pad(x, widths, mode="reflect"),
            np.pad(x, widths, mode="wrap")]
for k, (mode, want) in enumerate(zip(["constant", "edge", "reflect", "wrap"], expected)):
    t = onnx.TensorProto()
    with open(f"{sys.argv[1]}/output_{k}.pb", "rb") as f:
        t.ParseFromString(f.read())
    got = numpy_helper.to_array(t)
    print(mode, "ok" if np.array_equal(got, want) else f"MISMATCH\n{got}\n{want}")
