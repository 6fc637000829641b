#!/usr/bin/env python3
"""dsmp against onnxruntime on the CPU: median latency and their ratio.

For each model: the same inputs (test_data_set_0), onnxruntime (CPU
provider, all graph optimizations) with intra_op_num_threads = 1 and 2, and
the dsmp x86_64 artifact run by dsmprt-run (--repeat N, median). Prints
ratio = dsmp / onnxruntime; below 1.0 dsmp is faster.

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


def time_ort(model, feeds, threads, runs):
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    sess = ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])
    sess.run(None, feeds)  # warm-up
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        sess.run(None, feeds)
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--bin", required=True)
    p.add_argument("--models", required=True)
    p.add_argument("--runs", type=int, default=10)
    p.add_argument("--only", nargs="*", default=MODELS)
    args = p.parse_args()

    work = tempfile.mkdtemp(prefix="dsmp-bench-")
    print(f"{'model':<20} {'ort 1t ms':>10} {'ort 2t ms':>10} {'dsmp 1t/2t ms':>15} "
          f"{'ratio 1t':>9} {'ratio 2t':>9}")
    for name in args.only:
        model = os.path.join(args.models, name, "model.onnx")
        data = os.path.join(args.models, name, "test_data_set_0")
        feeds = load_inputs(data)
        ort1 = time_ort(model, feeds, 1, args.runs)
        ort2 = time_ort(model, feeds, 2, args.runs)
        artifact = os.path.join(work, name)
        r = subprocess.run([os.path.join(args.bin, "dsmp-compile"), model,
                            "-o", artifact, "--shapes-from", data],
                           capture_output=True, text=True)
        if r.returncode:
            why = r.stderr.strip().splitlines()[-1][:70] if r.stderr else "failed"
            print(f"{name:<20} {ort1:10.2f} {ort2:10.2f} {'n/a':>15} {'n/a':>9} "
                  f"{'n/a':>9}   ({why})")
            continue
        times = []
        for threads in (1, 2):
            env = dict(os.environ, OPENBLAS_NUM_THREADS=str(threads),
                       OMP_NUM_THREADS=str(threads))
            r = subprocess.run([os.path.join(args.bin, "dsmprt-run"), artifact,
                                "--inputs", data, "--repeat", str(args.runs + 1)],
                               capture_output=True, text=True, env=env)
            m = re.search(r"median ([0-9.]+) ms", r.stdout)
            if r.returncode or not m:
                print(f"{name:<20} run failed: {r.stderr.strip()[:80]}")
                break
            times.append(float(m.group(1)))
        if len(times) < 2:
            continue
        print(f"{name:<20} {ort1:10.2f} {ort2:10.2f} {times[0]:7.2f}/{times[1]:<7.2f}"
              f" {times[0] / ort1:9.2f} {times[1] / ort2:9.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
