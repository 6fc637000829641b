#!/usr/bin/env python3
"""What emulating a GPU target's formats costs on the host: for each model,
the FP32 x86_64 artifact and the artifact of a precision compile for
--target (tau 1e-2, calibrated on test_data_set_0), both run by dsmprt-run
on the same inputs in alternating rounds. Prints ratio = emulated / FP32
(median latencies; 1 thread). dsmp-compile's note on an emulated artifact
quotes this ratio.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cpu import time_dsmp  # noqa: E402

MODELS = ["resnet18_op17", "mobilenet_v2_op13", "tiny_bert_op13", "digits_cnn"]


def compile_artifact(bin_dir, model, data, out, extra):
    r = subprocess.run([os.path.join(bin_dir, "dsmp-compile"), model, "-o", out,
                        "--shapes-from", data, "--quiet"] + extra,
                       capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError((r.stderr.strip().splitlines() or ["failed"])[-1][:80])


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--bin", required=True)
    p.add_argument("--models", required=True)
    p.add_argument("--target", default="sm_80")
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--rounds", type=int, default=4)
    p.add_argument("--only", nargs="*", default=MODELS)
    args = p.parse_args()
    work = tempfile.mkdtemp(prefix="dsmp-emulation-")
    print(f"{'model':<20} {'fp32 ms':>9} {args.target + ' ms':>11} {'ratio':>7}")
    ratios = []
    for name in args.only:
        model = os.path.join(args.models, name, "model.onnx")
        data = os.path.join(args.models, name, "test_data_set_0")
        fp32, emulated = (os.path.join(work, name + suffix) for suffix in ("-fp32", "-emu"))
        try:
            compile_artifact(args.bin, model, data, fp32, [])
            compile_artifact(args.bin, model, data, emulated,
                             ["--target=" + args.target, "--tolerance=1e-2",
                              "--calibration=" + data])
            times = {fp32: [], emulated: []}
            per_round = max(1, args.runs // args.rounds)
            for _ in range(args.rounds):
                for artifact in (fp32, emulated):
                    times[artifact] += time_dsmp(args.bin, artifact, data, 1, per_round)
        except RuntimeError as e:
            print(f"{name:<20} failed: {e}")
            continue
        a, b = statistics.median(times[fp32]), statistics.median(times[emulated])
        ratios.append(b / a)
        print(f"{name:<20} {a:9.2f} {b:11.2f} {b / a:7.1f}", flush=True)
    if ratios:
        print(f"median ratio {statistics.median(ratios):.1f} "
              f"(range {min(ratios):.1f}-{max(ratios):.1f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
