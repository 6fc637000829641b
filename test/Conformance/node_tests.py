#!/usr/bin/env python3
"""Runs ONNX's backend node tests (Debian's libonnx-testdata) through dsmp.

For each test folder: import with dsmp-translate; where that works, export
back and run the exported model in onnxruntime on the folder's
test_data_set_*, comparing with the stored outputs (max abs error <=
1e-4 * max(1, max |ref|)). Prints, per op type dsmp supports, how many node
tests import and how many round-trip to matching outputs, and lists the
import failures with their one-line reason.

A node test counts under the op type of its model's first node whose type
is in its folder name (test_reduce_mean_* -> ReduceMean).

Exit status 1 if any import crashed (a signal or an exit status other than
0 or 1) or left an output file after failing.

usage: node_tests.py BIN NODE_DIR WORKDIR [--filter REGEX] [--no-ort]
"""
import argparse
import collections
import glob
import os
import re
import subprocess
import sys

import numpy as np
import onnx
from onnx import numpy_helper

parser = argparse.ArgumentParser()
parser.add_argument("bin")
parser.add_argument("node_dir")
parser.add_argument("work")
parser.add_argument("--filter", default="")
parser.add_argument("--no-ort", action="store_true")
parser.add_argument("--show-failures", action="store_true")
parser.add_argument("--min-import-rate", type=float, default=0.0,
                    help="fail when fewer node tests of supported op types import")
args = parser.parse_args()
os.makedirs(args.work, exist_ok=True)
if not args.no_ort:
    import onnxruntime as ort
    ort.set_default_logger_severity(3)



def op_type_of(folder, model):
    types = [n.op_type for n in model.graph.node]
    key = os.path.basename(folder)[len("test_"):].replace("_", "").lower()
    for t in types:
        if key.startswith(t.lower()):
            return t
    return types[0] if types else "?"


def load(folder, prefix):
    files = sorted(glob.glob(os.path.join(folder, f"{prefix}_*.pb")),
                   key=lambda p: int(re.search(r"_(\d+)\.pb$", p).group(1)))
    out = []
    for path in files:
        t = onnx.TensorProto()
        with open(path, "rb") as f:
            t.ParseFromString(f.read())
        out.append(numpy_helper.to_array(t))
    return out


stats = collections.defaultdict(lambda: [0, 0, 0])  # tests, imported, matched
failures = []
crashes = []
folders = sorted(glob.glob(os.path.join(args.node_dir, "test_*")))
for folder in folders:
    name = os.path.basename(folder)
    if args.filter and not re.search(args.filter, name):
        continue
    model_path = os.path.join(folder, "model.onnx")
    try:
        model = onnx.load(model_path)
    except Exception:
        continue
    op = op_type_of(folder, model)
    entry = stats[op]
    entry[0] += 1
    mlir = os.path.join(args.work, name + ".mlir")
    exported = os.path.join(args.work, name + ".onnx")
    for stale in (mlir, mlir + ".weights", exported):
        if os.path.exists(stale):
            os.remove(stale)
    r = subprocess.run([f"{args.bin}/dsmp-translate", "--import-onnx", model_path,
                        "-o", mlir], capture_output=True, text=True)
    if r.returncode not in (0, 1):
        crashes.append(f"{name}: exit status {r.returncode}")
        continue
    if r.returncode == 1:
        if os.path.exists(mlir):
            crashes.append(f"{name}: failed but left {mlir}")
        reason = r.stderr.strip().split(": error: ", 1)[-1]
        failures.append((op, name, reason))
        continue
    entry[1] += 1
    if args.no_ort:
        continue
    r = subprocess.run([f"{args.bin}/dsmp-translate", "--export-onnx", mlir, "-o",
                        exported], capture_output=True, text=True)
    if r.returncode != 0:
        failures.append((op, name, "export: " + r.stderr.strip()))
        continue
    try:
        session = ort.InferenceSession(exported, providers=["CPUExecutionProvider"])
        names = [i.name for i in session.get_inputs()]
        ok = True
        for data in sorted(glob.glob(os.path.join(folder, "test_data_set_*"))):
            inputs = load(data, "input")
            expected = load(data, "output")
            got = session.run(None, dict(zip(names, inputs)))
            for e, g in zip(expected, got):
                if e.dtype == object:
                    ok &= list(e.flat) == list(np.asarray(g).flat)
                    continue
                if e.shape != g.shape:
                    ok = False
                    continue
                if e.size == 0:
                    continue
                ef = e.astype(np.float64)
                gf = np.asarray(g).astype(np.float64)
                nan_ok = np.array_equal(np.isnan(ef), np.isnan(gf))
                err = np.nanmax(np.abs(gf - ef)) if not np.all(np.isnan(ef)) else 0.0
                ok &= nan_ok and err <= 1e-4 * max(1.0, float(np.nanmax(np.abs(ef))) if not np.all(np.isnan(ef)) else 1.0)
        if ok:
            entry[2] += 1
        else:
            failures.append((op, name, "onnxruntime output differs"))
    except Exception as e:  # onnxruntime rejected the exported model
        failures.append((op, name, "onnxruntime: " + str(e).splitlines()[0][:160]))

print(f"{'op type':28} {'tests':>5} {'import':>6} {'match':>6}")
total = [0, 0, 0]
for op in sorted(stats):
    t, i, m = stats[op]
    if i == 0:
        continue  # op types dsmp does not support are summarised below
    total = [a + b for a, b in zip(total, (t, i, m))]
    print(f"{op:28} {t:5} {i:6} {m:6}")
print(f"{'all supported op types':28} {total[0]:5} {total[1]:6} {total[2]:6}")
unsupported = sorted(op for op, (t, i, m) in stats.items() if i == 0)
print(f"op types with no importing node test ({len(unsupported)}): {' '.join(unsupported)}")
if args.show_failures:
    for op, name, reason in failures:
        print(f"  {name}: {reason[:200]}")
for c in crashes:
    print(f"CRASH {c}")
print(f"{len(crashes)} crashes")
rate = total[1] / total[0] if total[0] else 0.0
print(f"import rate over supported op types: {rate:.3f}")
sys.exit(1 if crashes or rate < args.min_import_rate else 0)
