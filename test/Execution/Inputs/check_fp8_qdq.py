#!/usr/bin/env python3
"""Writes the input of fp8-qdq.mlir, or compares dsmp's outputs with
ml_dtypes: y = f8(clip(x / 0.5, -max, max)) * 0.5 (saturating, round to
nearest even; ml_dtypes' own conversion does not saturate, hence the clip).
Exact equality: every f8 value and its product with 0.5 is an f32."""
import sys

import ml_dtypes
import numpy as np
from onnx import numpy_helper

FORMATS = {"e4m3fn": ml_dtypes.float8_e4m3fn, "e5m2": ml_dtypes.float8_e5m2,
           "e4m3fnuz": ml_dtypes.float8_e4m3fnuz, "e5m2fnuz": ml_dtypes.float8_e5m2fnuz}


def inputs():
    rng = np.random.default_rng(7)
    # Magnitudes from far below the smallest subnormals to past the largest
    # finite values, both signs, plus exact ties, zeros and infinities.
    x = rng.standard_normal(4000) * np.exp2(rng.integers(-22, 18, 4000))
    ties = []
    for dtype in FORMATS.values():
        grid = np.array([float(v) for v in np.arange(256, dtype=np.uint8).view(dtype)
                         if np.isfinite(float(v))], np.float64)
        grid = np.unique(grid)
        ties.extend(((grid[:-1] + grid[1:]) / 2)[::40] * 0.5)
    x = np.concatenate([x, ties, [0.0, -0.0, np.inf, -np.inf, 1e30, -1e30]])
    x = np.resize(x, 4096).astype(np.float32)
    return x


def main():
    if sys.argv[1] == "write":
        t = numpy_helper.from_array(inputs(), "x")
        with open(sys.argv[2], "wb") as f:
            f.write(t.SerializeToString())
        return 0
    folder = sys.argv[2]
    x = inputs()
    bad = 0
    for k, (name, dtype) in enumerate(FORMATS.items()):
        t = __import__("onnx").TensorProto()
        with open(f"{folder}/output_{k}.pb", "rb") as f:
            t.ParseFromString(f.read())
        got = numpy_helper.to_array(t)
        largest = float(ml_dtypes.finfo(dtype).max)
        want = (np.clip(x / np.float32(0.5), -largest, largest).astype(dtype)
                .astype(np.float32) * np.float32(0.5))
        same = (got == want) | (np.isnan(got) & np.isnan(want))
        print(f"{name}: {int(same.sum())}/{same.size} equal to ml_dtypes")
        bad += int((~same).sum())
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
