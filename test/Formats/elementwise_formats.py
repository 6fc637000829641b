#!/usr/bin/env python3
"""f16 and bf16 arithmetic in compiled code against numpy / ml_dtypes.

Builds one ONNX model per format whose every op computes in that format
(Add, Sub, Mul, Div, Max, Min, Neg, Abs, Relu, Sqrt, chained Mul(Add)),
plus Exp, Tanh and Sigmoid), compiles it with dsmp-compile, runs it with
dsmprt-run (optionally the AArch64 build under qemu) and compares each
output bit for bit with numpy (float16) or ml_dtypes (bfloat16) computing in
that same format: each op's result rounded to the format, round to nearest
even. +, -, *, /, sqrt, max, min, neg, abs and relu must match exactly
(they are correctly rounded in both); exp, tanh and sigmoid go through an
f32 libm call in both, so they may differ by 1 ulp where the two libms do.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import ml_dtypes
import numpy as np
import onnx
import onnx.numpy_helper as nh
from onnx import TensorProto, helper

EXACT = ["add", "sub", "mul", "div", "max", "min", "neg", "abs", "relu",
         "sqrt", "muladd"]
ONE_ULP = ["exp", "tanh", "sigmoid"]


def build_model(elem, n):
    vi = lambda name: helper.make_tensor_value_info(name, elem, [n])
    node = helper.make_node
    nodes = [node("Add", ["a", "b"], ["add"]), node("Sub", ["a", "b"], ["sub"]),
             node("Mul", ["a", "b"], ["mul"]), node("Div", ["a", "b"], ["div"]),
             node("Max", ["a", "b"], ["max"]), node("Min", ["a", "b"], ["min"]),
             node("Neg", ["a"], ["neg"]), node("Abs", ["a"], ["abs"]),
             node("Relu", ["a"], ["relu"]), node("Sqrt", ["abs"], ["sqrt"]),
             node("Mul", ["add", "b"], ["muladd"]),
             node("Exp", ["a"], ["exp"]), node("Tanh", ["a"], ["tanh"]),
             node("Sigmoid", ["a"], ["sigmoid"])]
    graph = helper.make_graph(nodes, "formats", [vi("a"), vi("b")],
                              [vi(o) for o in EXACT + ONE_ULP])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def reference(a, b):
    # numpy computes float16 ops, and ml_dtypes bfloat16 ops, in float32 and
    # rounds each result once: the correctly rounded result for these ops.
    dt = a.dtype
    with np.errstate(all="ignore"):
        add = a + b
        ref = {"add": add, "sub": a - b, "mul": a * b, "div": a / b,
               "max": np.where(np.isnan(a) | np.isnan(b), np.array(np.nan, dt),
                               np.maximum(a, b)),
               "min": np.where(np.isnan(a) | np.isnan(b), np.array(np.nan, dt),
                               np.minimum(a, b)),
               "neg": -a, "abs": np.abs(a),
               "relu": np.maximum(a, np.array(0, dt)),
               "sqrt": np.sqrt(np.abs(a)), "muladd": add * b}
        f = a.astype(np.float32)
        ref["exp"] = np.exp(f).astype(dt)
        ref["tanh"] = np.tanh(f).astype(dt)
        ref["sigmoid"] = (1 / (1 + np.exp(-f))).astype(dt)
    return {k: np.asarray(v, dt) for k, v in ref.items()}


def inputs(dt, n, seed):
    rng = np.random.default_rng(seed)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0],
                        np.float32)
    info = ml_dtypes.finfo(dt)
    edge = np.array([float(info.max), -float(info.max), float(info.tiny),
                     float(info.smallest_subnormal), 3 * float(info.smallest_subnormal)],
                    np.float32)
    def one():
        x = (rng.choice([-1, 1], n) * np.exp2(rng.uniform(-12, 12, n))
             * rng.uniform(1, 2, n)).astype(np.float32)
        k = len(specials) + len(edge)
        x[:k] = np.concatenate([specials, edge])
        rng.shuffle(x)
        return x.astype(dt)
    return one(), one()


def ulp_distance(x, y):
    """|x - y| in units of the format's spacing, via the integer patterns."""
    xi = x.view(np.uint16).astype(np.int32)
    yi = y.view(np.uint16).astype(np.int32)
    xi = np.where(xi & 0x8000, 0x8000 - xi, xi)  # sign-magnitude to ordered
    yi = np.where(yi & 0x8000, 0x8000 - yi, yi)
    both_nan = np.isnan(x.astype(np.float32)) & np.isnan(y.astype(np.float32))
    return np.where(both_nan, 0, np.abs(xi - yi))


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--bin", required=True)
    p.add_argument("--n", type=int, default=4096)
    p.add_argument("--arm-runner")
    p.add_argument("--qemu", default="qemu-aarch64")
    p.add_argument("--sysroot", default="/usr/aarch64-linux-gnu")
    args = p.parse_args()
    work = tempfile.mkdtemp(prefix="dsmp-formats-")
    failures = 0
    targets = ["x86_64"] + (["aarch64"] if args.arm_runner else [])
    for name, dt, elem in [("f16", np.dtype(np.float16), TensorProto.FLOAT16),
                           ("bf16", np.dtype(ml_dtypes.bfloat16), TensorProto.BFLOAT16)]:
        model = os.path.join(work, name + ".onnx")
        onnx.save(build_model(elem, args.n), model)
        data = os.path.join(work, name + ".data")
        os.makedirs(data)
        a, b = inputs(dt, args.n, seed=len(name))
        for k, (label, arr) in enumerate([("a", a), ("b", b)]):
            onnx.save_tensor(nh.from_array(arr, label),
                             os.path.join(data, f"input_{k}.pb"))
        ref = reference(a, b)
        for target in targets:
            art = os.path.join(work, f"{name}.{target}")
            subprocess.run([os.path.join(args.bin, "dsmp-compile"), model,
                            "--target=" + target, "-o", art], check=True)
            out = os.path.join(work, f"{name}.{target}.out")
            os.makedirs(out)
            runner = [os.path.join(args.bin, "dsmprt-run")]
            if target == "aarch64":
                runner = [args.qemu, "-L", args.sysroot, "-cpu", "max",
                          args.arm_runner]
            subprocess.run(runner + [art, "--inputs", data, "--save-outputs", out],
                           check=True, stdout=subprocess.DEVNULL)
            for k, op in enumerate(EXACT + ONE_ULP):
                got = nh.to_array(onnx.load_tensor(os.path.join(out, f"output_{k}.pb")))
                got = np.asarray(got).view(dt) if got.dtype != dt else got
                dist = ulp_distance(got, ref[op])
                limit = 0 if op in EXACT else 1
                bad = int((dist > limit).sum())
                failures += bad > 0
                print(f"{name} {target} {op}: {args.n} values, "
                      f"{int((dist > 0).sum())} differ, max {int(dist.max())} ulp "
                      f"(allowed {limit}) {'ok' if bad == 0 else 'MISMATCH'}")
    print(f"formats: {'PASS' if failures == 0 else 'FAIL'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
