#!/usr/bin/env python3
"""Round-trips one shared model through dsmp and checks it with onnxruntime.

import (dsmp-translate) -> dsmp-opt --verify-each, print/parse/print
identical -> export -> onnx.checker -> onnxruntime on every
test_data_set_N -> compare with the stored reference outputs.

Tolerance: for each output, max|out - ref| <= rtol * max|ref| (a normwise
relative error, so outputs near zero do not divide by zero).
Exit status 0 only when every step passes.
"""
import argparse
import glob
import os
import subprocess
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import numpy_helper


def run(cmd):
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"FAILED: {' '.join(cmd)}\n{result.stderr.strip()}")
    return result


def load_tensors(folder, prefix):
    tensors = []
    for path in sorted(glob.glob(os.path.join(folder, f"{prefix}_*.pb")),
                       key=lambda p: int(p.rsplit("_", 1)[1][:-3])):
        proto = onnx.TensorProto()
        with open(path, "rb") as f:
            proto.ParseFromString(f.read())
        tensors.append((proto.name, numpy_helper.to_array(proto)))
    return tensors


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True, help="folder with dsmp tools")
    parser.add_argument("--model-dir", required=True)
    parser.add_argument("--work", required=True, help="scratch folder")
    parser.add_argument("--rtol", type=float, default=1e-5)
    args = parser.parse_args()

    name = os.path.basename(os.path.normpath(args.model_dir))
    os.makedirs(args.work, exist_ok=True)
    model = os.path.join(args.model_dir, "model.onnx")
    mlir = os.path.join(args.work, f"{name}.mlir")
    printed = os.path.join(args.work, f"{name}.1.mlir")
    reprinted = os.path.join(args.work, f"{name}.2.mlir")
    exported = os.path.join(args.work, f"{name}.onnx")
    translate = os.path.join(args.bin, "dsmp-translate")
    opt = os.path.join(args.bin, "dsmp-opt")

    run([translate, "--import-onnx", model, "-o", mlir])
    run([opt, "--verify-each", mlir, "-o", printed])
    run([opt, printed, "-o", reprinted])
    with open(printed) as a, open(reprinted) as b:
        if a.read() != b.read():
            sys.exit("FAILED: print -> parse -> print is not identical")
    with open(mlir) as a, open(printed) as b:
        if a.read() != b.read():
            sys.exit("FAILED: dsmp-opt does not reprint the imported IR identically")
    print(f"{name}: import and round-trip OK ({os.path.getsize(mlir)} bytes of IR)")

    run([translate, "--export-onnx", mlir, "-o", exported])
    onnx.checker.check_model(exported, full_check=True)
    print(f"{name}: export OK, onnx.checker passes")

    # The same after folding and shape refinement: they must not change
    # what the model computes.
    refined = os.path.join(args.work, f"{name}.refined.mlir")
    refined_onnx = os.path.join(args.work, f"{name}.refined.onnx")
    run([opt, mlir, "-o", refined, "--pass-pipeline=builtin.module("
         "canonicalize,func.func(dsmp-refine-shapes))"])
    run([translate, "--export-onnx", refined, "-o", refined_onnx])
    worst = 0.0
    for path, label in ((exported, "exported"), (refined_onnx, "canonicalized")):
        worst = max(worst, compare(path, args, name, label))
    print(f"{name}: onnxruntime matches the references (worst rel {worst:.3e})")


def compare(path, args, name, label):
    """Runs `path` on every test_data_set_N and returns the worst error."""
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(path, options,
                                   providers=["CPUExecutionProvider"])
    output_names = [o.name for o in session.get_outputs()]
    sets = sorted(glob.glob(os.path.join(args.model_dir, "test_data_set_*")))
    if not sets:
        sys.exit("FAILED: no test_data_set_* folders")
    worst = 0.0
    for folder in sets:
        inputs = dict(load_tensors(folder, "input"))
        expected = load_tensors(folder, "output")
        got = session.run(None, inputs)
        if len(got) != len(expected):
            sys.exit(f"FAILED: {len(got)} outputs, expected {len(expected)}")
        for (ref_name, ref), out, out_name in zip(expected, got, output_names):
            if out_name != ref_name:
                sys.exit(f"FAILED: output '{out_name}' should be named '{ref_name}'")
            if out.shape != ref.shape:
                sys.exit(f"FAILED: {ref_name} shape {out.shape} != {ref.shape}")
            scale = max(float(np.max(np.abs(ref))) if ref.size else 0.0, 1e-30)
            err = float(np.max(np.abs(out.astype(np.float64) - ref))) if ref.size else 0.0
            rel = err / scale
            worst = max(worst, rel)
            status = "ok" if rel <= args.rtol else "MISMATCH"
            print(f"  {label} {os.path.basename(folder)} {ref_name}: max abs "
                  f"{err:.3e}, rel {rel:.3e} (tol {args.rtol:g}) {status}")
            if rel > args.rtol:
                sys.exit(f"FAILED: {ref_name} differs from the reference")
    return worst


if __name__ == "__main__":
    main()
