#!/usr/bin/env python3
"""Where onnxruntime runs an exported mixed-precision model in f32.

  ort-export-check.py MODEL.onnx [--report r.json] [--provider CPUExecutionProvider]
                      [--inputs DIR]

onnxruntime's CPU provider has few f16 kernels: for a node without one it
silently inserts casts to f32 around it (nodes named
InsertedPrecisionFreeCast_<node>) and computes it in f32. This creates a
session, saves the graph onnxruntime actually runs, and lists the f16 nodes
of the export that it upcast, so a user knows which ops do not run in f16
there (dsmp's own artifact and a GPU run them in f16). Node names are
onnxruntime's (the export's, with a suffix). With --report, adds
an "onnxruntime" section to a dsmp-compile report.

With --inputs DIR (input_*.pb) it also runs the export with onnxruntime's
graph optimizations off and with all of them (its default), and reports the
relative L2 difference of the outputs: onnxruntime 1.32 computes dsmp's
f8 Q/DQ export of resnet18 wrongly with ORT_ENABLE_ALL (right up to
ORT_ENABLE_EXTENDED), which this makes visible instead of silent.
"""
import argparse
import collections
import json
import os
import sys
import tempfile

import numpy as np
import onnx
import onnxruntime as ort
from onnx import numpy_helper

PREFIX = "InsertedPrecisionFreeCast_"


def read_inputs(folder):
    feed = {}
    for name in sorted(os.listdir(folder)):
        if name.startswith("input_") and name.endswith(".pb"):
            t = onnx.TensorProto()
            with open(os.path.join(folder, name), "rb") as f:
                t.ParseFromString(f.read())
            feed[t.name] = numpy_helper.to_array(t)
    return feed


def main():
    p = argparse.ArgumentParser()
    p.add_argument("model")
    p.add_argument("--report")
    p.add_argument("--provider", default="CPUExecutionProvider")
    p.add_argument("--inputs", help="folder of input_*.pb to compare optimization levels on")
    args = p.parse_args()
    model = onnx.load(args.model)
    result = {"provider": args.provider, "version": ort.__version__}
    with tempfile.TemporaryDirectory() as work:
        opts = ort.SessionOptions()
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        opts.optimized_model_filepath = os.path.join(work, "run.onnx")
        try:
            ort.InferenceSession(args.model, opts, providers=[args.provider])
            ran = onnx.load(opts.optimized_model_filepath)
            result["runs"] = True
        except Exception as e:  # noqa: BLE001 - the message is the answer
            result["runs"] = False
            result["error"] = str(e).split("\n")[0]
            ran = None
    upcast = []
    if ran is not None:
        # Nodes that read an inserted cast run in f32.
        for node in ran.graph.node:
            if node.op_type != "Cast" and any(i.startswith(PREFIX) for i in node.input):
                upcast.append({"name": node.name, "op_type": node.op_type})
    result["computed_in_f32"] = upcast
    by_type = collections.Counter(u["op_type"] for u in upcast)
    print(f"{args.model}: onnxruntime {ort.__version__} ({args.provider}) "
          f"{'runs it' if result['runs'] else 'cannot run it: ' + result['error']}; "
          f"{len(upcast)} f16 node(s) computed in f32 there (no f16 kernel): "
          + (", ".join(f"{t} x{c}" for t, c in sorted(by_type.items())) or "none"))
    if args.inputs and result["runs"]:
        feed = read_inputs(args.inputs)
        runs = {}
        for level in ("ORT_DISABLE_ALL", "ORT_ENABLE_ALL"):
            opts = ort.SessionOptions()
            opts.graph_optimization_level = getattr(ort.GraphOptimizationLevel, level)
            runs[level] = ort.InferenceSession(args.model, opts,
                                               providers=[args.provider]).run(None, feed)
        worst = 0.0
        for a, b in zip(runs["ORT_DISABLE_ALL"], runs["ORT_ENABLE_ALL"]):
            a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
            norm = np.linalg.norm(a)
            worst = max(worst, float(np.linalg.norm(b - a) / norm) if norm else 0.0)
        result["optimized_vs_unoptimized"] = worst
        print(f"{args.model}: onnxruntime with all graph optimizations differs from "
              f"none by {worst:.2e} (relative L2)"
              + ("; the optimized run is not to be trusted" if worst > 1e-3 else ""))
    if args.report:
        with open(args.report) as f:
            report = json.load(f)
        report["onnxruntime"] = result
        with open(args.report, "w") as f:
            json.dump(report, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
