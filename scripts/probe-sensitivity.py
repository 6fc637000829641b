#!/usr/bin/env python3
"""Checks dsmp's measured sensitivities against onnxruntime, op by op.

For each model folder (model.onnx, test_data_set_0): dsmp-compile --tolerance
writes the report, whose ops carry the sensitivity analysis' `energy` (the
output-normalised sum of (g * x)^2 that the error prediction rests on). For
a sample of ops spread over the graph, this rounds that one op's output to
f16 in onnxruntime (a Cast pair after its node) and measures the relative
L2 error of the outputs against the untouched model on the calibration
inputs; the prediction for that rounding alone is sqrt(energy * u^2 / 3)
with u = 2^-11. A ratio far from 1 points at a wrong gradient (a VJP model)
where the prediction is low, or a pessimistic bound where it is high.

  probe-sensitivity.py --bin build/bin MODEL_DIR... [--ops 12] [--only REGEX]
`--only` keeps the ops whose name matches REGEX (to bisect a stretch of
the graph); `--ops 0` probes every op kept; `--seeds N` averages the
analysis over N random seed vectors (its estimate's own noise falls). Prints, per model, each sampled op's predicted and measured error and their
ratio. A ratio over 3 (the prediction too low: the unsafe side) is flagged
`off`, unless the measurement is under 1e-5 (a thousandth of the usual
budget: a saturated softmax's near-ties are not linear there) or within
three times onnxruntime's own f32 noise (the same graph with an exact f64
round trip instead of f16; onnxruntime runs without its graph rewrites). One under 1/3 is
marked pessimistic: it costs share, not the budget. Exit status 1 when any
op is off.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

U = 2.0 ** -11
SKIP = {"Reshape", "Transpose", "Flatten", "Squeeze", "Unsqueeze", "Identity", "Concat",
        "Slice", "Gather", "Split", "Expand", "Tile", "Shape", "Constant", "Cast",
        "MaxPool", "GlobalMaxPool", "Relu", "Dropout"}


def inputs_of(folder):
    feed = {}
    for k in range(64):
        path = os.path.join(folder, f"input_{k}.pb")
        if not os.path.exists(path):
            break
        t = onnx.load_tensor(path)
        feed[t.name] = numpy_helper.to_array(t)
    return feed


def rel_l2(got, want):
    return max(float(np.linalg.norm(g.astype(np.float64) - w) /
                     max(np.linalg.norm(w.astype(np.float64)), 1e-30))
               for g, w in zip(got, want))


def rounded_after(model, node_name, to=TensorProto.FLOAT16):
    m = onnx.ModelProto()
    m.CopyFrom(model)
    nodes = list(m.graph.node)
    node = next(n for n in nodes if n.name == node_name)
    out = node.output[0]
    node.output[0] = out + "__exact"
    at = nodes.index(node) + 1
    m.graph.node.insert(at, helper.make_node("Cast", [out + "__f16"], [out], to=TensorProto.FLOAT,
                                             name=node_name + "__up"))
    m.graph.node.insert(at, helper.make_node("Cast", [out + "__exact"], [out + "__f16"],
                                             to=to, name=node_name + "__down"))
    return m


def session(model):
    """onnxruntime without its graph rewrites: the Casts inserted would
    otherwise change which ops it fuses, and fused kernels sum in other
    orders (or refuse the f64 round trip)."""
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    if isinstance(model, str):
        return ort.InferenceSession(model, options)
    return ort.InferenceSession(model.SerializeToString(), options)


def probe(args, folder, work):
    name = os.path.basename(folder.rstrip("/"))
    path = os.path.join(folder, "model.onnx")
    set0 = os.path.join(folder, "test_data_set_0")
    report = os.path.join(work, name + ".json")
    r = subprocess.run([os.path.join(args.bin, "dsmp-compile"), path, "--target=sm_80",
                        "--tolerance=1e-2", f"--calibration={set0}", f"--report={report}",
                        f"--sensitivity-seeds={args.seeds}",
                        "-o", os.path.join(work, name + ".art"), "--quiet"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode:
        print(f"{name}: dsmp-compile failed: {r.stdout.strip().splitlines()[-1][:200]}")
        return False
    ops = json.load(open(report))["ops"]
    model = onnx.load(path)
    float_nodes = {n.name for n in model.graph.node}
    sampled = [o for o in ops if o["op_type"] not in SKIP and o["name"] in float_nodes
               and (o.get("sensitivity") or {}).get("energy", 0) > 0]
    if args.only:
        sampled = [o for o in sampled if re.search(args.only, o["name"])]
    if 0 < args.ops < len(sampled):
        sampled = [sampled[round(i * (len(sampled) - 1) / max(args.ops - 1, 1))] for i in range(args.ops)]
    feed = inputs_of(set0)
    reference = session(path).run(None, feed)
    ok = True
    probed = off = 0
    for o in sampled:
        try:
            got = session(rounded_after(model, o["name"])).run(None, feed)
            # The same graph with an exact round trip (f64) instead: how far
            # onnxruntime's own f32 results move with the Casts in place.
            exact = session(rounded_after(model, o["name"], TensorProto.DOUBLE)).run(None, feed)
        except Exception as e:  # noqa: BLE001 - an op onnxruntime cannot take
            print(f"{name}: {o['name']}: onnxruntime: {str(e).splitlines()[0][:100]}")
            continue
        measured = rel_l2(got, reference)
        noise = rel_l2(exact, reference)
        predicted = (o["sensitivity"]["energy"] * U * U / 3) ** 0.5
        ratio = measured / predicted
        # A value f16 cannot hold (a mask's -3.4e38) breaks the outputs
        # (NaN, inf): the prediction agrees when it is over the outputs
        # themselves.
        # An op whose values f16 cannot hold is kept wider by its range
        # (dsmp-assign-precision's overflow check), whatever its energy.
        overflows = "f16" in ((o.get("range") or {}).get("overflow") or [])
        flag = ("  (overflows f16: kept wider by range)" if overflows and not np.isfinite(measured)
                else ("" if predicted > 1 else "  <-- off") if not np.isfinite(measured) else
                "" if 1 / 3 <= ratio <= 3 else
                "  (pessimistic)" if ratio < 1 / 3 else
                "  (within onnxruntime's own f32 noise)" if measured < 3 * noise else
                "  (under 1e-5: negligible)" if measured < 1e-5 else "  <-- off")
        ok &= "off" not in flag
        probed += 1
        off += "off" in flag
        print(f"{name}: {o['op_type']:>22} {o['name'][-50:]:50} predicted {predicted:.2e} "
              f"measured {measured:.2e} ratio {ratio:6.2f} (noise {noise:.1e}){flag}", flush=True)
    print(f"{name}: {probed} ops probed, {off} off")
    return ok


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--bin", required=True)
    p.add_argument("--ops", type=int, default=12, help="ops sampled per model (0: all)")
    p.add_argument("--seeds", type=int, default=1,
                   help="dsmp-compile --sensitivity-seeds: random seed vectors of the analysis")
    p.add_argument("--only", help="probe only the ops whose name matches this regex")
    p.add_argument("models", nargs="+")
    args = p.parse_args()
    ok = True
    with tempfile.TemporaryDirectory() as work:
        for folder in args.models:
            ok &= probe(args, folder, work)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
