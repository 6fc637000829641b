#!/usr/bin/env python3
"""How much of a model can compute in f16 at a budget: a measured search.

    bench/precision_bound.py MODEL_DIR... [--tolerance 1e-2] [--points 12]
        [--greedy 24] [--target sm_80] [--bin build/bin]

dsmp's share on a model whose all-f16 error misses tau is a prediction-led
choice. This measures what a search that sees the measured error finds, as a
reference to compare it with. An op "in f16" here has its float inputs and
its output rounded to f16 (Cast pairs in the graph; onnxruntime computes the
rest in f32), which is a 16-bit op with f32 accumulation, as tensor cores
and dsmp's exact emulation compute contractions; onnxconverter-common's
block list cannot stand in for it, as it leaves f16 casts between blocked
ops. On a network whose rounding errors grow layer by layer (deep CNNs with
random weights) the error an op's rounding leaves at the output shrinks
with its depth, so the sets worth keeping in f32 are prefixes of the graph:
for each cut (a share of the FLOPs, in graph order) the ops before it stay
f32 and the rest are rounded, measured on test_data_set_0 against
onnxruntime's FP32 outputs (relative L2, worst output); the best cut on a
grid is refined by bisection, then checked on test_data_set_1. Suffixes
(the ops after the cut in f32) are searched the same way, and a greedy pass
over the prefix's f32 ops returns to f16 each whose rounding keeps set 0
within tau (largest FLOPs first, --greedy N of them). Prints per model the
all-f16 error, the best prefix, suffix and greedy result, and beside them
dsmp-compile's share and measured error at the same budget (calibrated on
set 0, measured on set 1).

Every float op counts (softmax and normalisation included, as the peers
count them), so the share is a reference for dsmp's, whose policies keep
those in f32.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from precision import (FLOAT, node_flops, ort_run, read_set, rel_l2,  # noqa: E402
                       shapes_and_types)

FLOAT16 = onnx.TensorProto.FLOAT16


class Model:
    def __init__(self, folder):
        self.name = os.path.basename(os.path.normpath(folder))
        self.model = onnx.load(os.path.join(folder, "model.onnx"))
        self.info = shapes_and_types(self.model)
        nodes = self.model.graph.node
        self.flops = [node_flops(n, self.info)[0] for n in nodes]
        self.total = sum(self.flops) or 1
        self.before = list(np.cumsum([0] + self.flops[:-1]) / self.total)
        # Ops with float outputs: the ones a format applies to.
        self.float_ops = [i for i, n in enumerate(nodes)
                          if n.output and self.info.get(n.output[0], (None,))[0] == FLOAT]
        self.feeds = [read_set(os.path.join(folder, f"test_data_set_{i}"), "input")
                      for i in (0, 1)]
        self.refs = [ort_run(self.model, feed) for feed in self.feeds]
        self.runs = 0

    def share(self, lowered):
        return sum(self.flops[i] for i in lowered) / self.total

    def rounded(self, lowered):
        """The model with the float inputs and outputs of `lowered` ops
        rounded to f16 (Cast to f16 and back)."""
        model = onnx.ModelProto()
        model.CopyFrom(self.model)
        graph = model.graph
        new_nodes, counter = [], [0]

        def round_trip(name):
            counter[0] += 1
            half, back = f"{name}__h{counter[0]}", f"{name}__r{counter[0]}"
            new_nodes.append(helper.make_node("Cast", [name], [half], to=FLOAT16))
            new_nodes.append(helper.make_node("Cast", [half], [back], to=FLOAT))
            exact.add(back)
            return back

        renamed = {}  # a rounded output's original name -> its rounded value
        exact = set()  # values that f16 holds already
        for i, node in enumerate(self.model.graph.node):
            node = onnx.NodeProto.FromString(node.SerializeToString())
            for k, name in enumerate(node.input):
                if name in renamed:
                    node.input[k] = renamed[name]
            if i in lowered:
                for k, name in enumerate(node.input):
                    if name and name not in exact and self.info.get(name, (None,))[0] == FLOAT:
                        node.input[k] = round_trip(name)
            new_nodes.append(node)
            if i in lowered:
                for name in node.output:
                    if name and self.info.get(name, (None,))[0] == FLOAT:
                        renamed[name] = round_trip(name)
        outputs = {o.name for o in graph.output}
        # Graph outputs keep their names: route each rounded one back.
        for name, value in renamed.items():
            if name in outputs:
                new_nodes.append(helper.make_node("Identity", [value], [name + "__out"]))
        del graph.node[:]
        graph.node.extend(new_nodes)
        for o in graph.output:
            if o.name in renamed:
                o.name = o.name + "__out"
        return model

    def measure(self, lowered, sets=(0, 1)):
        model = self.rounded(lowered)
        self.runs += 1
        return [rel_l2(ort_run(model, self.feeds[s]), self.refs[s]) for s in sets]

    def cut(self, at, side):
        """The ops rounded by a cut at a FLOP share: those from it on
        (prefix in f32) or before it (suffix in f32)."""
        if side == "prefix":
            return {i for i in self.float_ops if self.before[i] >= at}
        return {i for i in self.float_ops if self.before[i] < at}

    def search(self, side, tau, points):
        """The cut with the most f16 FLOPs that meets tau on set 0: a grid
        from all-f16 toward all-f32, then bisection. Returns (cut, lowered)."""
        grid = [k / points for k in range(points + 1)]
        if side == "suffix":
            grid = grid[::-1]
        good = bad = None
        for at in grid:
            if self.measure(self.cut(at, side), (0,))[0] <= tau:
                good = at
                break
            bad = at
        if good is None:
            return None
        if bad is not None:
            for _ in range(5):
                mid = (good + bad) / 2
                if self.measure(self.cut(mid, side), (0,))[0] <= tau:
                    good = mid
                else:
                    bad = mid
        return good, self.cut(good, side)

    def greedy(self, lowered, tau, count):
        """Ops kept f32 by `lowered`, returned to f16 one at a time (largest
        FLOPs first) where set 0 stays within tau."""
        lowered = set(lowered)
        kept = sorted((i for i in self.float_ops if i not in lowered and self.flops[i]),
                      key=lambda i: -self.flops[i])
        for i in kept[:count]:
            if self.measure(lowered | {i}, (0,))[0] <= tau:
                lowered.add(i)
        return lowered


def dsmp_row(args, folder, work):
    """dsmp's share and measured error at the same budget (sm_80 by default,
    calibrated on set 0, measured on set 1, as bench/precision runs it)."""
    name = os.path.basename(os.path.normpath(folder))
    report = os.path.join(work, name + ".json")
    r = subprocess.run([os.path.join(args.bin, "dsmp-compile"),
                        os.path.join(folder, "model.onnx"), f"--target={args.target}",
                        f"--tolerance={args.tolerance}",
                        f"--calibration={os.path.join(folder, 'test_data_set_0')}",
                        f"--validation={os.path.join(folder, 'test_data_set_1')}",
                        f"--report={report}", "-o", os.path.join(work, name + ".art")],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode or not os.path.exists(report):
        return "FAILED: " + (r.stdout.strip().splitlines() or [""])[-1][:60]
    with open(report) as f:
        s = json.load(f)["summary"]
    return f"{s['low_precision_flop_share']:6.1%} {s['measured_error']:.2e}"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("models", nargs="+", help="model folders (model.onnx, test_data_set_0/1)")
    p.add_argument("--tolerance", type=float, default=1e-2)
    p.add_argument("--points", type=int, default=12, help="grid points before bisection")
    p.add_argument("--greedy", type=int, default=24,
                   help="f32 ops the greedy pass tries to return to f16")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    p.add_argument("--bin", default=os.path.join(root, "build", "bin"),
                   help="dsmp's tools (dsmp-compile runs beside the search)")
    p.add_argument("--target", default="sm_80")
    args = p.parse_args()
    tau = args.tolerance
    print(f"tau = {tau:g}; share of FLOPs rounded to f16: error on set 0 / set 1 "
          "(relative L2 against onnxruntime FP32)")
    print(f"{'model':<18} {'all-f16':>24} {'best prefix in f32':>28} {'best suffix in f32':>28}"
          f" {'prefix + greedy':>24} {'dsmp, set 1':>18}")
    with tempfile.TemporaryDirectory() as work:
        for folder in args.models:
            m = Model(folder)
            everything = set(m.float_ops)
            e = m.measure(everything)
            cells = [f"{m.share(everything):6.1%} {e[0]:.2e}/{e[1]:.2e}"]
            prefix = None
            for side in ("prefix", "suffix"):
                found = m.search(side, tau, args.points)
                if side == "prefix" and found:
                    prefix = found[1]
                if found is None:
                    cells.append("none meets tau")
                    continue
                e = m.measure(found[1])
                cells.append(f"{found[0]:.3f}: {m.share(found[1]):6.1%} {e[0]:.2e}/{e[1]:.2e}")
            if prefix is not None and prefix != everything:
                lowered = m.greedy(prefix, tau, args.greedy)
                e = m.measure(lowered)
                cells.append(f"{m.share(lowered):6.1%} {e[0]:.2e}/{e[1]:.2e}")
            else:
                cells.append("-")
            cells.append(dsmp_row(args, folder, work))
            print(f"{m.name:<18} {cells[0]:>24} {cells[1]:>28} {cells[2]:>28} {cells[3]:>24}"
                  f" {cells[4]:>18}  ({m.runs} runs)", flush=True)


if __name__ == "__main__":
    main()
