#!/usr/bin/env python3
"""Checks the forward estimate's energy for group_norm_per_channel.py's Mul against
the exact expectation: with the adjoint's seed r / |y| (r random signs), the
Mul's energy sum_i (g_i a_i)^2 averages sum_i a_i^2 sum_j J_ji^2 / |y|^2,
J the Jacobian of GroupNormalization with a group per channel (as
InstanceNormalization's; per channel, n values:
s / sigma (I - 11^T / n - xh xh^T / n)). One random sample of the
rounding noise: within a factor 1.5 for 64 values.

    check_forward_estimate.py MODEL_DIR ANALYSED.mlir"""
import re
import sys

import numpy as np
import onnx
from onnx import numpy_helper

folder, analysed = sys.argv[1], sys.argv[2]
model = onnx.load(folder + "/model.onnx")
init = {t.name: numpy_helper.to_array(t).astype(np.float64) for t in model.graph.initializer}
with open(folder + "/cal/input_0.pb", "rb") as f:
    x = numpy_helper.to_array(onnx.load_tensor_from_string(f.read())).astype(np.float64)
a = x * init["k"]
eps = 1e-5
expected_num, y_norm = 0.0, 0.0
for c in range(a.shape[1]):
    v = a[0, c].reshape(-1)
    n = v.size
    mu, sigma = v.mean(), np.sqrt(v.var() + eps)
    xh = (v - mu) / sigma
    y = init["scale"][c] * xh + init["bias"][c]
    y_norm += (y ** 2).sum()
    J = init["scale"][c] / sigma * (np.eye(n) - np.ones((n, n)) / n - np.outer(xh, xh) / n)
    # J[j, i] = dy_j / da_i
    expected_num += ((v ** 2) * (J ** 2).sum(axis=0)).sum()
expected = expected_num / y_norm

text = open(analysed).read()
line = next(l for l in text.splitlines() if "dsmp.mul" in l and "dsmp.sensitivity" in l)
energy = float(re.search(r"energy = ([0-9.e+-]+)", line).group(1))
estimated = re.search(r'dsmp.adjoint_estimated_at = \[([^\]]*)\]', text)
print("estimated at", estimated.group(1) if estimated else None)
ratio = energy / expected
print("mul energy / expected", "within 1.5x" if 1 / 1.5 < ratio < 1.5 else "off:", f"({ratio:.3f})", file=sys.stdout)
