#!/usr/bin/env python3
"""The build machine's half of bench/gpu/run.sh: everything the GPU machine
needs, in parts of at most 60 MiB (one device-tool call carries 64 MiB).

The GPU machine has a driver, CUDA, PyTorch and numpy but no LLVM/MLIR and
no ../shared, so each part holds:
  bin/dsmprt-run, lib/libdsmprt.so*   the runtime (built here)
  models/NAME/{fp32,mixed}/           device artifacts (sm_80 code, which
                                      the driver also runs on an H100/H200)
  models/NAME/data/                   test_data_set_0 (inputs and outputs)
  gemm/FORMAT_N/                      one matmul N^3 per format (inputs are
                                      made on the device)
  models/scan_gradients/fp32/         the dynamic-scaling kernel, with
                                      numpy's results in data/
  plan.json                           what device.py runs and checks

Models too big for a part with both variants go into two parts.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
MIB = 1 << 20
# A call carries 64 MiB with the working tree (about 3 MiB).
PART_LIMIT = 58 * MIB
# Inputs a model branches on, fixed as its test data has them.
FIXED = {"silero_vad_v5": ["--fix-input", "sr=16000"]}
# The models timed at batch 32 against torchvision/transformers-free
# equivalents (device.py builds the torch side).
BATCHED = {"resnet18_op17": 32, "mobilenet_v2_op13": 32, "tiny_bert_op13": 32}
GEMM_FORMATS = ["f32", "tf32", "bf16", "f16", "e4m3"]
# The per-tensor scale of the FP8 GEMMs' operands (device.py's inputs are
# standard normal: |x| < 5.6 lands within E4M3's 448).
F8_SCALE = 1.0 / 80
GEMM_SIZES = [4096, 8192]


def folder_size(path):
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            total += os.path.getsize(os.path.join(root, name))
    return total


def run(command):
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode:
        sys.exit(f"prepare.py: {' '.join(command)} failed:\n{result.stderr}")
    return result.stdout


def batch_shapes(data, batch, folder):
    """A folder with the test data's inputs at `batch` (zeros; --shapes-from
    reads only their shapes)."""
    os.makedirs(folder, exist_ok=True)
    for name in sorted(os.listdir(data)):
        if not name.startswith("input_"):
            continue
        tensor = onnx.TensorProto()
        with open(os.path.join(data, name), "rb") as f:
            tensor.ParseFromString(f.read())
        array = numpy_helper.to_array(tensor)
        dims = list(array.shape)
        if dims:
            dims[0] = batch
        zeros = numpy_helper.from_array(np.zeros(dims, array.dtype), tensor.name)
        with open(os.path.join(folder, name), "wb") as f:
            f.write(zeros.SerializeToString())


def gemm_model(path, fmt, n):
    """dsmp IR: f32 inputs, the product in `fmt` (f32 accumulation in the
    16-bit and tf32 forms, as the tensor cores do), an f32 output. e4m3:
    both operands through quantize/dequantize with one scale each, as the
    precision passes write an f8 contraction, and B transposed (a Linear
    layer's weight, the form cuBLASLt's FP8 GEMMs take)."""
    t = {"f32": "f32", "tf32": "tf32", "bf16": "bf16", "f16": "f16",
         "e4m3": "f8E4M3FN"}[fmt]
    lines = [f"func.func @main_graph(%a: tensor<{n}x{n}xf32> {{dsmp.name = \"a\"}}, "
             f"%b: tensor<{n}x{n}xf32> {{dsmp.name = \"b\"}}) -> "
             f"(tensor<{n}x{n}xf32> {{dsmp.name = \"c\"}}) {{"]
    if fmt == "e4m3":
        f32 = f"tensor<{n}x{n}xf32>"
        f8 = f"tensor<{n}x{n}x{t}>"
        lines += [f"  %s = dsmp.constant dense<{F8_SCALE}> : tensor<f32>",
                  f"  %z = dsmp.constant dense<0.0> : tensor<{t}>",
                  "  %n = dsmp.none"]
        for x in ("a", "b"):
            lines += [
                f"  %q{x} = dsmp.quantize_linear %{x}, %s, %z : ({f32}, "
                f"tensor<f32>, tensor<{t}>) -> {f8}",
                f"  %d{x} = dsmp.dequantize_linear %q{x}, %s, %z : ({f8}, "
                f"tensor<f32>, tensor<{t}>) -> {f32}"]
        lines.append(f"  %c = dsmp.gemm %da, %db, %n {{transB = 1 : i64}} : "
                     f"({f32}, {f32}, none) -> {f32}")
    elif fmt == "f32":
        lines.append(f"  %c = dsmp.matmul %a, %b : (tensor<{n}x{n}xf32>, "
                     f"tensor<{n}x{n}xf32>) -> tensor<{n}x{n}xf32>")
    else:
        lines += [
            f"  %ac = dsmp.cast %a : (tensor<{n}x{n}xf32>) -> tensor<{n}x{n}x{t}>",
            f"  %bc = dsmp.cast %b : (tensor<{n}x{n}xf32>) -> tensor<{n}x{n}x{t}>",
            f"  %p = dsmp.matmul %ac, %bc : (tensor<{n}x{n}x{t}>, "
            f"tensor<{n}x{n}x{t}>) -> tensor<{n}x{n}x{t}>",
            f"  %c = dsmp.cast %p : (tensor<{n}x{n}x{t}>) -> tensor<{n}x{n}xf32>"]
    lines += [f"  return %c : tensor<{n}x{n}xf32>", "}"]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--bin", required=True)
    parser.add_argument("--lib", required=True)
    parser.add_argument("--models", required=True)
    parser.add_argument("--target", default="sm_80")
    parser.add_argument("--only", nargs="*", help="model names (default all)")
    args = parser.parse_args()
    compile_ = os.path.join(args.bin, "dsmp-compile")
    staging = os.path.join(args.out, "staging")
    shutil.rmtree(args.out, ignore_errors=True)
    os.makedirs(staging)
    units = []  # (size, relative path, plan entry)

    names = args.only or sorted(
        n for n in os.listdir(args.models)
        if os.path.isfile(os.path.join(args.models, n, "model.onnx")))
    for name in names:
        model = os.path.join(args.models, name, "model.onnx")
        data = os.path.join(args.models, name, "test_data_set_0")
        shapes = ["--shapes-from", data]
        with tempfile.TemporaryDirectory() as tmp:
            if name in BATCHED:
                batch_shapes(data, BATCHED[name], tmp)
                shapes += ["--shapes-from", tmp]
            for kind in ("fp32", "mixed"):
                rel = os.path.join("models", name, kind)
                dest = os.path.join(staging, rel)
                os.makedirs(os.path.dirname(dest), exist_ok=True)
                command = [compile_, model, f"--target={args.target}", "-o",
                           dest, "--quiet", "--batch-sizes=0"] + shapes + \
                    FIXED.get(name, [])
                if kind == "mixed":
                    command += ["--tolerance=1e-2", f"--calibration={data}",
                                "--codegen=device"]
                print(f"prepare: {name} {kind}", file=sys.stderr)
                run(command)
                shutil.copytree(data, os.path.join(dest, "data"))
                entry = {"model": name, "kind": kind, "artifact": rel,
                         "data": os.path.join(rel, "data"),
                         "batch": BATCHED.get(name)}
                units.append((folder_size(dest), rel, entry))
    for fmt in GEMM_FORMATS:
        for n in GEMM_SIZES:
            rel = os.path.join("gemm", f"{fmt}_{n}")
            source = os.path.join(staging, rel + ".mlir")
            os.makedirs(os.path.dirname(source), exist_ok=True)
            gemm_model(source, fmt, n)
            print(f"prepare: gemm {fmt} {n}", file=sys.stderr)
            run([compile_, source, f"--target={args.target}", "-o",
                 os.path.join(staging, rel), "--quiet", "--batch-sizes=0"])
            os.remove(source)
            units.append((folder_size(os.path.join(staging, rel)), rel,
                          {"gemm": fmt, "n": n, "artifact": rel}))

    # The dynamic-scaling kernel (dsmp.scan_gradients) on gradients with
    # zeros and tiny values, against numpy's results (--finite: no infs or
    # NaNs, which dsmprt-run --compare cannot weigh errors beside; the host
    # checks those, test/Execution/scan-gradients.test).
    rel = os.path.join("models", "scan_gradients", "fp32")
    scan = os.path.join(staging, "scan_gradients")
    run([sys.executable, os.path.join(ROOT, "test", "Execution", "Inputs",
                                      "scan_gradients.py"),
         "make", scan, "f16", "--finite"])
    print("prepare: scan_gradients", file=sys.stderr)
    os.makedirs(os.path.dirname(os.path.join(staging, rel)), exist_ok=True)
    run([compile_, os.path.join(scan, "scan.mlir"), f"--target={args.target}",
         "-o", os.path.join(staging, rel), "--quiet", "--batch-sizes=0"])
    shutil.copytree(os.path.join(scan, "data"),
                    os.path.join(staging, rel, "data"))
    shutil.rmtree(scan)
    units.append((folder_size(os.path.join(staging, rel)), rel,
                  {"model": "scan_gradients", "kind": "fp32", "artifact": rel,
                   "data": os.path.join(rel, "data")}))

    # The runtime, in every part.
    runtime = folder_size_of_runtime(args)
    parts, current, used = [], [], runtime
    for size, rel, entry in sorted(units, key=lambda u: -u[0]):
        if size + runtime > PART_LIMIT:
            sys.exit(f"prepare.py: {rel} alone is {size / MIB:.1f} MiB")
        placed = False
        for part in parts:
            if part["used"] + size <= PART_LIMIT:
                part["units"].append((rel, entry))
                part["used"] += size
                placed = True
                break
        if not placed:
            parts.append({"used": runtime + size, "units": [(rel, entry)]})
    for index, part in enumerate(parts):
        root = os.path.join(args.out, f"part{index}")
        os.makedirs(os.path.join(root, "bin"))
        os.makedirs(os.path.join(root, "lib"))
        shutil.copy2(os.path.join(args.bin, "dsmprt-run"),
                     os.path.join(root, "bin"))
        for lib in os.listdir(args.lib):
            if lib.startswith("libdsmprt.so"):
                shutil.copy2(os.path.join(args.lib, lib),
                             os.path.join(root, "lib"), follow_symlinks=True)
        plan = []
        for rel, entry in part["units"]:
            shutil.move(os.path.join(staging, rel), os.path.join(root, rel))
            plan.append(entry)
        with open(os.path.join(root, "plan.json"), "w") as f:
            json.dump(plan, f, indent=1)
        print(f"part{index}: {folder_size(root) / MIB:.1f} MiB, "
              f"{len(plan)} entries")
    shutil.rmtree(staging)


def folder_size_of_runtime(args):
    size = os.path.getsize(os.path.join(args.bin, "dsmprt-run"))
    for lib in os.listdir(args.lib):
        if lib.startswith("libdsmprt.so"):
            size += os.path.getsize(os.path.realpath(os.path.join(args.lib, lib)))
    return size


if __name__ == "__main__":
    main()
