#!/usr/bin/env python3
"""How the precision flow's time grows with the graph: synthetic stacks of
small transformer-style blocks (MatMul, Add, Softmax-free attention mix,
Erf-GELU, residual, LayerNorm built from primitives; about 20 ops each)
as ONNX, at --sizes ops. Each size goes through import (dsmp-translate),
the calibrated analyses (dsmp-analyze-ranges, dsmp-analyze-sensitivity)
and the decisions (assignment, casts, minimisation) with dsmp-opt; the
times per stage and their growth from the smallest size are printed.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HIDDEN = 16
TOKENS = 4


def block(i, x, rng, nodes, inits):
    def w(name, shape, scale=0.2):
        inits.append(numpy_helper.from_array(
            (rng.standard_normal(shape) * scale).astype(np.float32), f"{name}_{i}"))
        return f"{name}_{i}"
    def node(op, inputs, **attrs):
        out = f"{op.lower()}_{i}_{len(nodes)}"
        nodes.append(helper.make_node(op, inputs, [out], **attrs))
        return out
    h = node("MatMul", [x, w("wq", [HIDDEN, HIDDEN])])
    h = node("Add", [h, w("bq", [HIDDEN], 0.1)])
    t = node("Transpose", [h], perm=[1, 0])
    s = node("MatMul", [h, t])
    s = node("Mul", [s, w("scale", [], 0.05)])
    s = node("Tanh", [s])
    h = node("MatMul", [s, h])
    g = node("Mul", [h, w("c", [], 0.7)])
    g = node("Erf", [g])
    g = node("Add", [g, w("one", [], 0.0)])
    h = node("Mul", [h, g])
    h = node("MatMul", [h, w("wo", [HIDDEN, HIDDEN])])
    h = node("Add", [h, x])
    m = node("ReduceMean", [h], axes=[1])
    c = node("Sub", [h, m])
    v = node("Mul", [c, c])
    v = node("ReduceMean", [v], axes=[1])
    v = node("Add", [v, w("eps", [], 0.0)])
    v = node("Sqrt", [v])
    return node("Div", [c, v])


def make_model(num_ops, path):
    rng = np.random.default_rng(0)
    nodes, inits = [], []
    x = "x"
    i = 0
    while len(nodes) < num_ops:
        x = block(i, x, rng, nodes, inits)
        i += 1
    for init in inits:  # the scalar "constants" must be exact
        if init.name.startswith(("one_", "eps_")):
            init.CopyFrom(numpy_helper.from_array(
                np.array(1.0 if init.name.startswith("one_") else 1e-5, np.float32), init.name))
    graph = helper.make_graph(
        nodes, "scale", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [TOKENS, HIDDEN])],
        [helper.make_tensor_value_info(x, TensorProto.FLOAT, [TOKENS, HIDDEN])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.save(model, path)
    return len(nodes)


def timed(cmd):
    start = time.time()
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode:
        raise RuntimeError(" ".join(cmd) + "\n" + r.stdout[-2000:])
    return time.time() - start


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bin", required=True)
    p.add_argument("--sizes", nargs="+", type=int, default=[1000, 10000])
    p.add_argument("--target", default="sm_80")
    args = p.parse_args()
    opt = os.path.join(args.bin, "dsmp-opt")
    print(f"{'ops':>8} {'import s':>9} {'ranges s':>9} {'sensitivity s':>14} "
          f"{'assign+casts s':>15} {'total s':>8} {'s per 1k ops':>13}")
    first = None
    with tempfile.TemporaryDirectory() as work:
        cal = os.path.join(work, "cal")
        os.makedirs(cal)
        x = np.random.default_rng(1).standard_normal((TOKENS, HIDDEN)).astype(np.float32)
        with open(os.path.join(cal, "input_0.pb"), "wb") as f:
            f.write(numpy_helper.from_array(x, "x").SerializeToString())
        for size in args.sizes:
            model = os.path.join(work, f"m{size}.onnx")
            ops = make_model(size, model)
            mlir = os.path.join(work, f"m{size}.mlir")
            t_import = timed([os.path.join(args.bin, "dsmp-translate"), "--import-onnx", model,
                              "-o", mlir])
            loaded = os.path.join(work, f"m{size}.loaded.mlir")
            timed([opt, mlir, f"--dsmp-load-weights=weights-dir={work}", "-o", loaded])
            ranged = os.path.join(work, f"m{size}.ranges.mlir")
            t_ranges = timed([opt, loaded, f"--dsmp-analyze-ranges=calibration={cal}", "-o", ranged])
            sens = os.path.join(work, f"m{size}.sens.mlir")
            t_sens = timed([opt, ranged, f"--dsmp-analyze-sensitivity=calibration={cal}",
                            "-o", sens])
            t_assign = timed([opt, sens, "--pass-pipeline=builtin.module("
                              f"dsmp-assign-precision{{target={args.target}}},"
                              "func.func(dsmp-insert-casts,dsmp-minimize-casts),cse)",
                              "-o", os.devnull])
            total = t_import + t_ranges + t_sens + t_assign
            print(f"{ops:8d} {t_import:9.2f} {t_ranges:9.2f} {t_sens:14.2f} {t_assign:15.2f} "
                  f"{total:8.2f} {1000 * total / ops:13.3f}", flush=True)
            if first is None:
                first = (ops, total)
            else:
                print(f"{'':8} growth {total / first[1]:.1f}x for {ops / first[0]:.0f}x the ops "
                      f"(linear: {ops / first[0]:.0f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
