#!/usr/bin/env python3
"""check_peaks.py INPUT.pb SCALE ANALYZED.mlir: the max-abs peak estimate.

The graph is softmax(SCALE * x) per row. Counts the probabilities within
0.1 of the largest (numpy, in float64) and compares with the pass's
peak_elements; checks that the scaling op's energy is the larger of its L2
energy and its peaks' energy times (f(K) / f(n))^2, f(m) =
sqrt(2 ln(2m) / m), by reading energy and peak_energy (the L2 energy is at
most the energy, and peak_energy <= L2 energy: the peaks are a subset).
"""
import math
import re
import sys

import numpy as np
import onnx
from onnx import numpy_helper

x = numpy_helper.to_array(onnx.load_tensor(sys.argv[1])).astype(np.float64)
scale = float(sys.argv[2])
text = open(sys.argv[3]).read()
z = scale * x
p = np.exp(z - z.max(axis=-1, keepdims=True))
p /= p.sum(axis=-1, keepdims=True)
expected = int((p >= 0.1 * p.max()).sum())
found = int(re.search(r"peak_elements = (\d+)", text).group(1))
n = int(re.search(r"output_elements = (\d+)", text).group(1))
print(f"peaks numpy {expected} pass {found} of {n}: {expected == found}")
sens = re.search(r"dsmp\.mul .*?dsmp\.sensitivity = \{([^}]*)\}", text).group(1)
energy = float(re.search(r"\benergy = ([-0-9.eE+]+)", sens).group(1))
peak = float(re.search(r"peak_energy = ([-0-9.eE+]+)", sens).group(1))
f = lambda m: min(1.0, math.sqrt(2 * math.log(2 * m) / m))
scaled = peak * (f(found) / f(n)) ** 2
# The peaks hold nearly all of a saturated softmax's error, so the scaled
# peak energy is the larger one and the energy equals it.
print(f"energy {energy:.6e} scaled peak energy {scaled:.6e}: "
      f"{math.isclose(energy, scaled, rel_tol=1e-9)}")
