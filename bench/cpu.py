#!/usr/bin/env python3
"""dsmp against onnxruntime on the CPU: median latency and their ratio.

For each model: the same inputs (test_data_set_0), onnxruntime (CPU
provider, all graph optimizations) with intra_op_num_threads = 1 and 2, and
the dsmp x86_64 artifact run by dsmprt-run, in rounds that alternate the
two (each latency: the median of the rounds' medians). Prints ratio =
dsmp / onnxruntime; below 1.0 dsmp is faster.

Then the same for any batch: each model at batch 17 (rows of
test_data_set_0, scripts/batch_sets.py), the artifact compiled for batch 17
against the one compiled for the data's shapes plus batch 1 and 8 (the
default), which runs 17 as 8 + 8 + 1; ratio = split / static.

Then the dynamic variant (docs/dynamic-shapes.md) at the data's shapes
against the static variant for them; ratio = dynamic / static (models whose
ops need static shapes have none, and say why).

dsmp's generated code is single-threaded; on x86-64 its f32 matmuls and
convolutions call oneDNN's dnnl_sgemm (or OpenBLAS where oneDNN is not
installed), whose threads OMP_NUM_THREADS (OPENBLAS_NUM_THREADS) sets: 1
and 2, like onnxruntime's intra-op threads.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
import onnx.numpy_helper as nh
import onnxruntime as ort

MODELS = ["resnet18_op17", "mobilenet_v2_op13", "ppocr_det_v4", "ppocr_rec_v4",
          "tiny_bert_op13"]


def load_inputs(folder):
    feeds = {}
    for f in sorted(os.listdir(folder)):
        if f.startswith("input_"):
            t = onnx.load_tensor(os.path.join(folder, f))
            feeds[t.name] = nh.to_array(t)
    return feeds


def ort_session(model, threads):
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    return ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])


def time_ort(sess, feeds, runs):
    sess.run(None, feeds)  # warm-up
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        sess.run(None, feeds)
        times.append((time.perf_counter() - start) * 1e3)
    return [statistics.median(times)]


def time_dsmp(bin_dir, artifact, data, threads, runs):
    """The median of `runs` runs by dsmprt-run (after one warm-up run)."""
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(threads),
               OMP_NUM_THREADS=str(threads))
    r = subprocess.run([os.path.join(bin_dir, "dsmprt-run"), artifact,
                        "--inputs", data, "--repeat", str(runs + 1)],
                       capture_output=True, text=True, env=env)
    m = re.search(r"median ([0-9.]+) ms", r.stdout)
    if r.returncode or not m:
        raise RuntimeError(r.stderr.strip()[:80])
    return [float(m.group(1))]


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--bin", required=True)
    p.add_argument("--models", required=True)
    p.add_argument("--runs", type=int, default=30,
                   help="timed runs per model and thread count, over all rounds")
    p.add_argument("--rounds", type=int, default=5,
                   help="alternating onnxruntime/dsmp rounds")
    p.add_argument("--only", nargs="*", default=MODELS)
    args = p.parse_args()

    work = tempfile.mkdtemp(prefix="dsmp-bench-")
    print(f"{'model':<20} {'ort 1t ms':>10} {'ort 2t ms':>10} {'dsmp 1t/2t ms':>15} "
          f"{'ratio 1t':>9} {'ratio 2t':>9}")
    for name in args.only:
        model = os.path.join(args.models, name, "model.onnx")
        data = os.path.join(args.models, name, "test_data_set_0")
        feeds = load_inputs(data)
        artifact = os.path.join(work, name)
        r = subprocess.run([os.path.join(args.bin, "dsmp-compile"), model,
                            "-o", artifact, "--shapes-from", data],
                           capture_output=True, text=True)
        if r.returncode:
            why = r.stderr.strip().splitlines()[-1][:70] if r.stderr else "failed"
            print(f"{name:<20} {'n/a':>10} {'n/a':>10} {'n/a':>15} {'n/a':>9} "
                  f"{'n/a':>9}   ({why})")
            continue
        # Rounds that alternate onnxruntime and dsmp, so that a slow spell of
        # a shared machine lands on both; each time is the median of the
        # rounds' medians.
        sessions = {t: ort_session(model, t) for t in (1, 2)}
        ort_times = {1: [], 2: []}
        dsmp_times = {1: [], 2: []}
        per_round = max(1, args.runs // args.rounds)
        try:
            for _ in range(args.rounds):
                for t in (1, 2):
                    ort_times[t] += time_ort(sessions[t], feeds, per_round)
                    # onnxruntime's idle workers spin for a while after a
                    # run; let them stop before dsmp takes the cores.
                    time.sleep(0.5)
                    dsmp_times[t] += time_dsmp(args.bin, artifact, data, t, per_round)
        except RuntimeError as e:
            print(f"{name:<20} run failed: {e}")
            continue
        ort1, ort2 = (statistics.median(ort_times[t]) for t in (1, 2))
        d1, d2 = (statistics.median(dsmp_times[t]) for t in (1, 2))
        print(f"{name:<20} {ort1:10.2f} {ort2:10.2f} {d1:7.2f}/{d2:<7.2f}"
              f" {d1 / ort1:9.2f} {d2 / ort2:9.2f}", flush=True)
    any_batch(args, work)
    dynamic_dims(args, work)
    return 0


def any_batch(args, work, batch=17):
    """The default artifact (the data's shapes, batch 1 and 8) running a
    batch of 17 in slices, against one compiled for batch 17."""
    print(f"\nbatch {batch}: static = compiled for it, split = "
          f"{batch // 8} x 8 + {batch % 8} x 1 through the default artifact")
    print(f"{'model':<20} {'static 2t ms':>13} {'split 2t ms':>12} {'split/static':>13}")
    batch_sets = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                              "scripts", "batch_sets.py")
    for name in args.only:
        model = os.path.join(args.models, name, "model.onnx")
        stored = os.path.join(args.models, name, "test_data_set_0")
        split = os.path.join(work, name)  # the first table's artifact
        with open(os.path.join(split, "manifest.txt")) as f:
            if not any(line.startswith("batch ") for line in f):
                print(f"{name:<20} {'-':>13} {'-':>12} {'-':>13}   (no split: see dsmp-compile's note)")
                continue
        data = os.path.join(work, name + "-data")
        subprocess.run([sys.executable, batch_sets, model, stored, data, str(batch)],
                       check=True, capture_output=True)
        data = os.path.join(data, f"b{batch}")
        static = os.path.join(work, name + "-static")
        subprocess.run([os.path.join(args.bin, "dsmp-compile"), model, "-o", static,
                        "--shapes-from", data, "--batch-sizes=0"],
                       check=True, capture_output=True)
        times = {static: [], split: []}
        # Slow runs (seconds at batch 17), and noisy: at least 3 per round.
        per_round = max(3, args.runs // (2 * args.rounds))
        for _ in range(args.rounds):
            for artifact in (static, split):
                times[artifact] += time_dsmp(args.bin, artifact, data, 2, per_round)
        s, d = statistics.median(times[static]), statistics.median(times[split])
        print(f"{name:<20} {s:13.2f} {d:12.2f} {d / s:13.2f}", flush=True)


def dynamic_dims(args, work):
    """The dynamic variant (dims sized at run time, docs/dynamic-shapes.md)
    against the static variant compiled for the data's shapes, both at those
    shapes: the dynamic artifact's only static variant has every dynamic
    dim 3, so the data runs through its dynamic one. Single-threaded (the
    generated code is; the GEMM library gets 1 thread)."""
    print("\ndynamic dims: static = compiled for the data's shapes, dynamic = "
          "the same shapes through the dynamic variant")
    print(f"{'model':<20} {'static 1t ms':>13} {'dynamic 1t ms':>14} {'dynamic/static':>15}")
    for name in args.only:
        model = os.path.join(args.models, name, "model.onnx")
        data = os.path.join(args.models, name, "test_data_set_0")
        static = os.path.join(work, name)  # the first table's artifact
        dynamic = os.path.join(work, name + "-dynamic")
        r = subprocess.run([os.path.join(args.bin, "dsmp-compile"), model, "-o", dynamic,
                            "--default-dim", "3", "--batch-sizes=0",
                            "--dynamic-variant=always"],
                           capture_output=True, text=True)
        if r.returncode:
            why = r.stderr.strip().splitlines()[-1].strip()[:60] if r.stderr else "failed"
            print(f"{name:<20} {'-':>13} {'-':>14} {'-':>15}   (none: {why})")
            continue
        times = {static: [], dynamic: []}
        per_round = max(1, args.runs // args.rounds)
        for _ in range(args.rounds):
            for artifact in (static, dynamic):
                times[artifact] += time_dsmp(args.bin, artifact, data, 1, per_round)
        s, d = statistics.median(times[static]), statistics.median(times[dynamic])
        print(f"{name:<20} {s:13.3f} {d:14.3f} {d / s:15.2f}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
