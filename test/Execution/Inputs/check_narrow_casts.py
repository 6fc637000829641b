#!/usr/bin/env python3
"""Writes the input of narrow-casts.mlir, or compares dsmp's outputs with
numpy's float16 and ml_dtypes' bfloat16 (both round to nearest even).
Exact equality: every 16-bit value is an f32."""
import sys

import ml_dtypes
import numpy as np
from onnx import TensorProto, numpy_helper

FORMATS = {"f16": np.float16, "bf16": ml_dtypes.bfloat16}


def inputs():
    rng = np.random.default_rng(5)
    # Far below f16's subnormals to past its largest value, both signs;
    # exact ties of both grids; zeros, infinities, NaN. 4099 values, so
    # the 8-wide path has a tail.
    x = rng.standard_normal(3000) * np.exp2(rng.integers(-30, 20, 3000))
    grid = np.unique(np.abs(np.arange(65536, dtype=np.uint16).view(np.float16)
                            .astype(np.float64)))
    grid = grid[np.isfinite(grid)]
    ties = ((grid[:-1] + grid[1:]) / 2)[::60]
    bgrid = np.unique(np.abs(np.arange(65536, dtype=np.uint16).view(ml_dtypes.bfloat16)
                             .astype(np.float64)))
    bgrid = bgrid[np.isfinite(bgrid)]
    bties = ((bgrid[:-1] + bgrid[1:]) / 2)[::120]
    special = [0.0, -0.0, np.inf, -np.inf, np.nan, 65504.0, 65519.0, 65520.0, -65520.0,
               2.0**-24, 2.0**-25, 3 * 2.0**-26, 1e38, -3e38]
    x = np.concatenate([x, ties, -ties, bties, special])
    return np.resize(x, 4099).astype(np.float32)


def main():
    if sys.argv[1] == "write":
        with open(sys.argv[2], "wb") as f:
            f.write(numpy_helper.from_array(inputs(), "x").SerializeToString())
        return 0
    x = inputs()
    bad = 0
    for k, (name, dtype) in enumerate(FORMATS.items()):
        t = TensorProto()
        with open(f"{sys.argv[2]}/output_{k}.pb", "rb") as f:
            t.ParseFromString(f.read())
        got = numpy_helper.to_array(t)
        with np.errstate(over="ignore"):
            want = x.astype(dtype).astype(np.float32)
        same = (got.view(np.uint32) == want.view(np.uint32)) | (np.isnan(got) & np.isnan(want))
        print(f"{name}: {int(same.sum())}/{same.size} equal")
        bad += int((~same).sum())
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
