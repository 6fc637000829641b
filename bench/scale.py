#!/usr/bin/env python3
"""How the precision flow's time grows with the graph: synthetic stacks of
small transformer-style blocks (MatMul, Add, Softmax-free attention mix,
Erf-GELU, residual, LayerNorm built from primitives; about 20 ops each,
and every block adds the same graph input "pos", a value read by thousands
of ops at 100k, like a shared attention mask) as ONNX, at --sizes ops. Each size goes through import, the
calibrated analyses (dsmp-analyze-ranges, dsmp-analyze-sensitivity) and
the decisions (assignment, casts, minimisation) in one dsmp-opt process
on the .onnx, as dsmp-compile runs them. Printed: the import alone (a
separate run), each stage's time from --mlir-timing, the whole process's
wall time (import included) and its growth from the smallest size.
"""
import argparse
import os
import re
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
    h = node("Add", [h, "pos"])
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
        nodes, "scale", [helper.make_tensor_value_info(name, TensorProto.FLOAT, [TOKENS, HIDDEN])
                         for name in ("x", "pos")],
        [helper.make_tensor_value_info(x, TensorProto.FLOAT, [TOKENS, HIDDEN])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.save(model, path)
    return len(nodes)


def timed(cmd):
    """Wall time of cmd and its combined output."""
    start = time.time()
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode:
        raise RuntimeError(" ".join(cmd) + "\n" + r.stdout[-2000:])
    return time.time() - start, r.stdout


def pass_times(report):
    """Seconds per pass name from an --mlir-timing report."""
    times = {}
    for line in report.splitlines():
        m = re.match(r"\s*([0-9.]+) \(\s*[0-9.]+%\)\s+(.+?)\s*$", line)
        if m:
            times[m.group(2)] = times.get(m.group(2), 0.0) + float(m.group(1))
    return times


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bin", required=True)
    p.add_argument("--sizes", nargs="+", type=int, default=[1000, 10000, 100000])
    p.add_argument("--target", default="sm_80")
    args = p.parse_args()
    opt = os.path.join(args.bin, "dsmp-opt")
    print(f"{'ops':>8} {'import s':>9} {'analyses s':>11} "
          f"{'assign+casts s':>15} {'total s':>8} {'s per 1k ops':>13}")
    first = None
    with tempfile.TemporaryDirectory() as work:
        cal = os.path.join(work, "cal")
        os.makedirs(cal)
        rng = np.random.default_rng(1)
        for k, name in enumerate(("x", "pos")):
            x = rng.standard_normal((TOKENS, HIDDEN)).astype(np.float32) * (1 if k == 0 else 0.1)
            with open(os.path.join(cal, f"input_{k}.pb"), "wb") as f:
                f.write(numpy_helper.from_array(x, name).SerializeToString())
        pipeline = ("builtin.module("
                    f"dsmp-analyze-sensitivity{{calibration={cal} record-ranges=true}},"
                    f"dsmp-assign-precision{{target={args.target}}},"
                    "func.func(dsmp-insert-casts,dsmp-minimize-casts),cse)")
        for size in args.sizes:
            model = os.path.join(work, f"m{size}.onnx")
            ops = make_model(size, model)
            # One process, as dsmp-compile runs it: import (weights stay in
            # memory), the analyses, the decisions; bytecode out.
            t_import, _ = timed([opt, model, "--emit-bytecode", "-o", os.devnull])
            total, report = timed([opt, model, f"--pass-pipeline={pipeline}",
                                   "--mlir-timing", "--emit-bytecode", "-o", os.devnull])
            passes = pass_times(report)
            t_analyses = passes.get("AnalyzeSensitivityPass", 0.0)
            t_assign = sum(passes.get(k, 0.0) for k in
                           ("AssignPrecisionPass", "'func.func' Pipeline", "CSE"))
            print(f"{ops:8d} {t_import:9.2f} {t_analyses:11.2f} {t_assign:15.2f} "
                  f"{total:8.2f} {1000 * total / ops:13.3f}", flush=True)
            if first is None:
                first = (ops, total)
            else:
                print(f"{'':8} growth {total / first[1]:.1f}x for {ops / first[0]:.0f}x the ops "
                      f"(linear: {ops / first[0]:.0f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
