#!/usr/bin/env python3
"""Compares dsmp's f32 -> low-precision conversions (dsmp-format-convert,
i.e. include/dsmp/Support/FloatFormats.h) with independent references:
numpy (f16), ml_dtypes (bf16, the four f8 formats, saturating and not) and a
float64 model of PTX cvt.rna.tf32.f32 (tf32). Also decodes every code of
each small format and compares with ml_dtypes.

Inputs: every edge case (signed zeros, infinities, NaNs, f32 extremes and
subnormals, every representable value of each format, the midpoints between
neighbours and the f32 values one ulp either side of both), plus N seeded
random f32 bit patterns, or with --exhaustive all 2^32.

A mismatch is a differing code, except that NaN only needs to map to a NaN.
Prints one line per format with its mismatch count; exit status 1 on any.

usage: check_formats.py BIN WORKDIR [--samples N] [--exhaustive]
"""
import argparse
import os
import subprocess
import sys

import ml_dtypes
import numpy as np

parser = argparse.ArgumentParser()
parser.add_argument("bin")
parser.add_argument("work")
parser.add_argument("--samples", type=int, default=10_000_000)
parser.add_argument("--exhaustive", action="store_true")
args = parser.parse_args()
os.makedirs(args.work, exist_ok=True)

SMALL = {  # format -> (numpy dtype, code dtype)
    "f16": (np.float16, np.uint16),  # toF16/fromF16
    "f16-bulk": (np.float16, np.uint16),  # their array forms (F16C)
    "f16-general": (np.float16, np.uint16),  # encode/decode(kF16)
    "bf16": (ml_dtypes.bfloat16, np.uint16),
    "f8E4M3FN": (ml_dtypes.float8_e4m3fn, np.uint8),
    "f8E5M2": (ml_dtypes.float8_e5m2, np.uint8),
    "f8E4M3FNUZ": (ml_dtypes.float8_e4m3fnuz, np.uint8),
    "f8E5M2FNUZ": (ml_dtypes.float8_e5m2fnuz, np.uint8),
}


def run_tool(fmt, words, flag=None):
    src = os.path.join(args.work, "in.bin")
    dst = os.path.join(args.work, "out.bin")
    words.astype("<u4").tofile(src)
    cmd = [f"{args.bin}/dsmp-format-convert", fmt] + ([flag] if flag else []) + [src, dst]
    subprocess.run(cmd, check=True)
    return np.fromfile(dst, dtype="<u4")


def edge_cases():
    words = [0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000,
             0xFFC00000, 0x7F800001, 0x7FBFFFFF, 0xFFFFFFFF, 0x7F7FFFFF,
             0xFF7FFFFF, 0x00800000, 0x80800000, 0x00000001, 0x807FFFFF,
             0x3F800000, 0xBF800000]
    values = []
    for dtype, code_type in SMALL.values():
        n = 1 << (8 * np.dtype(code_type).itemsize)
        vals = np.arange(n, dtype=np.uint64).astype(code_type).view(dtype)
        with np.errstate(invalid="ignore"):
            vals = vals.astype(np.float64)
        vals = np.unique(vals[np.isfinite(vals)])
        mids = (vals[:-1] + vals[1:]) / 2
        values += [vals, mids]
    values = np.concatenate(values).astype(np.float32)
    bits = values.view(np.uint32)
    around = np.concatenate([bits, bits + 1, bits - 1, bits ^ 0x80000000,
                             (bits + 1) ^ 0x80000000, (bits - 1) ^ 0x80000000])
    return np.unique(np.concatenate([np.array(words, np.uint32),
                                     around.astype(np.uint32)]))


def tf32_reference(x):
    """Round to tf32, ties away from zero, computed in float64: normal
    values keep 11 significant bits (1 + 10 stored); subnormals (below
    2^-126, same exponent range as f32) are multiples of 2^-136."""
    with np.errstate(invalid="ignore"):
        x64 = x.astype(np.float64)
    out = x64.copy()
    finite = np.isfinite(x64) & (x64 != 0)
    m, e = np.frexp(x64[finite])  # |m| in [0.5, 1)
    e = np.maximum(e, -125)  # subnormal: a fixed quantum of 2^-136
    scaled = np.abs(x64[finite]) * np.ldexp(1.0, 11 - e)
    rounded = np.sign(x64[finite]) * np.floor(scaled + 0.5)
    out[finite] = np.ldexp(rounded, e - 11)
    with np.errstate(over="ignore"):
        return out.astype(np.float32)


def reference(fmt, x, saturate):
    if fmt == "tf32":
        return tf32_reference(x).view(np.uint32).astype(np.uint32)
    dtype, code_type = SMALL[fmt]
    y = x
    if saturate:
        top = float(ml_dtypes.finfo(dtype).max)
        y = np.where(np.isnan(x), x, np.clip(x, -top, top)).astype(np.float32)
    with np.errstate(over="ignore", invalid="ignore"):
        return y.astype(dtype).view(code_type).astype(np.uint32)


def is_nan_code(fmt, codes):
    if fmt == "tf32":
        return np.isnan(codes.astype(np.uint32).view(np.float32))
    dtype, code_type = SMALL[fmt]
    return np.isnan(codes.astype(code_type).view(dtype).astype(np.float32))


def batches():
    yield edge_cases()
    if args.exhaustive:
        step = 1 << 26
        for start in range(0, 1 << 32, step):
            yield np.arange(start, start + step, dtype=np.uint64).astype(np.uint32)
    else:
        rng = np.random.default_rng(20261130)
        yield rng.integers(0, 1 << 32, args.samples, dtype=np.uint64).astype(np.uint32)


modes = [(fmt, False) for fmt in list(SMALL) + ["tf32"]]
modes += [(fmt, True) for fmt in SMALL if fmt.startswith("f8")]
mismatches = {mode: 0 for mode in modes}
checked = 0
for words in batches():
    checked += len(words)
    x = words.view(np.float32)
    for fmt, saturate in modes:
        got = run_tool(fmt, words, "--saturate" if saturate else None)
        want = reference(fmt, x, saturate)
        bad = got != want
        bad &= ~(is_nan_code(fmt, got) & is_nan_code(fmt, want))
        if bad.any() and mismatches[(fmt, saturate)] == 0:
            i = np.nonzero(bad)[0][0]
            print(f"  first {fmt} mismatch: x=0x{words[i]:08x} ({x[i]!r}) "
                  f"dsmp 0x{got[i]:x} reference 0x{want[i]:x}")
        mismatches[(fmt, saturate)] += int(bad.sum())

# Decoding: every code of each small format back to f32.
decode_bad = {}
for fmt, (dtype, code_type) in SMALL.items():
    codes = np.arange(1 << (8 * np.dtype(code_type).itemsize), dtype=np.uint32)
    got = run_tool(fmt, codes, "--decode").view(np.float32)
    want = codes.astype(code_type).view(dtype).astype(np.float32)
    bad = (got.view(np.uint32) != want.view(np.uint32)) & ~(np.isnan(got) & np.isnan(want))
    decode_bad[fmt] = int(bad.sum())

print(f"checked {checked} f32 bit patterns")
for (fmt, saturate), count in mismatches.items():
    print(f"encode {fmt}{' saturate' if saturate else ''}: {count} mismatches")
for fmt, count in decode_bad.items():
    print(f"decode {fmt}: {count} mismatches")
total = sum(mismatches.values()) + sum(decode_bad.values())
sys.exit(1 if total else 0)
