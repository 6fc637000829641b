#!/usr/bin/env python3
"""Checks dsmp-analyze-ranges' calibrated statistics against numpy and
ml_dtypes on tensors of every size class (a few elements, thousands, with
zeros of both signs, subnormals, infinities and NaNs, exponents beyond both
ends of the histogram) and over two calibration sets.

usage: check_ranges.py BIN_DIR WORK_DIR
"""
import os
import re
import subprocess
import sys

import ml_dtypes
import numpy as np
from onnx import numpy_helper

LOWEST, HIGHEST = -30, 17  # the histogram's first and last binary exponents
FORMATS = {"f16": np.float16, "bf16": ml_dtypes.bfloat16,
           "f8E4M3FN": ml_dtypes.float8_e4m3fn, "f8E5M2": ml_dtypes.float8_e5m2,
           "f8E4M3FNUZ": ml_dtypes.float8_e4m3fnuz,
           "f8E5M2FNUZ": ml_dtypes.float8_e5m2fnuz}


def expected(x):
    """The dsmp.range fields of the values x (float32), from numpy."""
    finite = x[np.isfinite(x)]
    nonzero = finite[finite != 0]
    mag = np.abs(nonzero).astype(np.float64)
    exponent = np.floor(np.log2(mag)).astype(int)
    hist = np.bincount(np.clip(exponent, LOWEST, HIGHEST) - LOWEST,
                       minlength=HIGHEST - LOWEST + 1)
    amax = float(np.max(np.abs(finite))) if finite.size else 0.0
    out = {"count": x.size, "zeros": int(np.sum(x == 0)),
           "non_finite": int(np.sum(~np.isfinite(x))),
           "min": float(finite.min()) if finite.size else 0.0,
           "max": float(finite.max()) if finite.size else 0.0,
           "amax": amax, "hist": [int(v) for v in hist]}
    out["overflow"] = [f for f, t in FORMATS.items()
                       if amax > float(ml_dtypes.finfo(t).max)]
    out["underflow"] = [
        f for f, t in FORMATS.items() if nonzero.size and
        np.sum(mag < float(ml_dtypes.finfo(t).smallest_normal)) * 100 > nonzero.size]
    return out


def parse(dictionary):
    """The fields of one printed dsmp.range dictionary."""
    out = {}
    for key in ("count", "zeros", "non_finite"):
        m = re.search(rf"\b{key} = (-?\d+) : i64", dictionary)
        out[key] = int(m.group(1)) if m else 0
    for key in ("min", "max", "amax"):
        out[key] = float(re.search(rf"\b{key} = ([-+0-9.eE]+) : f64", dictionary).group(1))
    out["hist"] = [int(v) for v in
                   re.search(r"hist = array<i64: ([^>]*)>", dictionary).group(1).split(", ")]
    for key in ("overflow", "underflow"):
        names = re.search(rf"\b{key} = \[([^\]]*)\]", dictionary).group(1)
        out[key] = re.findall(r'"([^"]+)"', names)
    return out


def case(rng, n):
    """n float32 values spanning 2^-140 .. 2^100, signed, with specials."""
    x = (rng.choice([-1, 1], n) * np.exp2(rng.uniform(-140, 100, n))).astype(np.float32)
    if n >= 8:
        x[:8] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-42, -3e-39, 65504.0]
    return x


def main():
    bin_dir, work = sys.argv[1:3]
    rng = np.random.default_rng(7)
    failures = 0
    for n in (5, 300, 513, 4099, 70000):
        sets = [case(rng, n), case(rng, n)]
        cal = os.path.join(work, f"cal{n}")
        for k, x in enumerate(sets):
            os.makedirs(os.path.join(cal, f"test_data_set_{k}"), exist_ok=True)
            with open(os.path.join(cal, f"test_data_set_{k}", "input_0.pb"), "wb") as f:
                f.write(numpy_helper.from_array(x, "x").SerializeToString())
        graph = os.path.join(work, f"g{n}.mlir")
        with open(graph, "w") as f:
            f.write(f'func.func @main_graph(%x: tensor<{n}xf32> {{dsmp.name = "x"}})'
                    f' -> tensor<{n}xf32> {{\n'
                    f'  %y = dsmp.neg %x : (tensor<{n}xf32>) -> tensor<{n}xf32>\n'
                    f'  return %y : tensor<{n}xf32>\n}}\n')
        ir = subprocess.run([os.path.join(bin_dir, "dsmp-opt"), graph,
                             f"--dsmp-analyze-ranges=calibration={cal}"],
                            check=True, capture_output=True, text=True).stdout
        ranges = re.findall(r"dsmp\.range = \{([^{}]*)\}", ir)
        both = np.concatenate(sets)
        # The input's attribute (from the input files) and neg's result.
        for what, got, want in (("input", ranges[0], expected(both)),
                                ("neg", ranges[1], expected(-both))):
            got = parse(got)
            bad = [k for k in want if (got[k] != want[k] if k not in ("min", "max", "amax")
                                       else not np.isclose(got[k], want[k], rtol=1e-7, atol=0))]
            status = "ok" if not bad else "MISMATCH " + ", ".join(
                f"{k}: {got[k]} != {want[k]}" for k in bad)
            failures += bool(bad)
            print(f"{n} elements, {what}: {status}")
    print("ranges match numpy" if not failures else f"{failures} mismatches")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
