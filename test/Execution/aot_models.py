#!/usr/bin/env python3
"""Compile shared models ahead of time with dsmp-compile and check them.

x86_64 (host): each model gets one variant per test data set
(--shapes-from) and its outputs on both sets must match the stored
onnxruntime outputs (dsmprt-run --compare).

aarch64: the same artifacts built for AArch64 run under
`qemu-aarch64 -cpu max`; their outputs must match the x86_64 build's
(written with --save-outputs) within --arm-rtol, or the model's own
tolerance (RTOL) where that is larger.

Prints one line per model and set, then a summary line that the lit test
checks. Exit status 1 when anything fails.
"""
import argparse
import concurrent.futures
import os
import shutil
import subprocess
import sys
import tempfile

# Per-model tolerance (normwise: max abs error / max |reference|) against
# onnxruntime. ppocr_rec_v4 differs by 2.4e-5: f32 summation order in its
# attention blocks (see docs/status.md).
# ppocr_det_v4 by 4.7e-5: onnxruntime itself, with graph optimizations off,
# differs from its stored output by 1.1e-4 on this model (5.0e-5 on set 1),
# so f32 results of any other summation order land there. The same model
# tolerance holds for AArch64 against x86-64 (oneDNN's GEMM blocking on
# x86-64, generated loops on AArch64: 3.3e-5 on ppocr_det_v4).
RTOL = {"ppocr_rec_v4": 1e-4, "ppocr_det_v4": 1e-4, "silero_vad_v5": 1e-4}
# Per-model compile options: silero_vad_v5 branches on its sample rate
# input (16 kHz and 8 kHz paths); the test data is 16 kHz.
EXTRA = {"silero_vad_v5": ["--fix-input", "sr=16000"]}
# Outputs this close in absolute terms pass too (oww_alexa's score on set 1
# is 9e-5, where 1e-8 of rounding is 1e-4 relative).
ATOL = 1e-7


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, **kw)


def check_model(name, args, work):
    model_dir = os.path.join(args.models, name)
    sets = sorted(d for d in os.listdir(model_dir) if d.startswith("test_data_set_"))
    sets = sets[: args.sets]
    lines, ok = [], True
    x86 = os.path.join(work, name + ".x86_64")
    cmd = [os.path.join(args.bin, "dsmp-compile"), os.path.join(model_dir, "model.onnx"),
           "--target=x86_64", "-o", x86]
    for s in sets:
        cmd += ["--shapes-from", os.path.join(model_dir, s)]
    cmd += EXTRA.get(name, [])
    r = run(cmd)
    if r.returncode:
        return False, [f"{name}: x86_64 compile FAILED\n{r.stdout}"]
    rtol = RTOL.get(name, 1e-5)
    for s in sets:
        saved = os.path.join(work, f"{name}.{s}")
        os.makedirs(saved)
        r = run([os.path.join(args.bin, "dsmprt-run"), x86, "--inputs",
                 os.path.join(model_dir, s), "--compare", "--rtol", str(rtol),
                 "--atol", str(ATOL), "--save-outputs", saved])
        ok &= r.returncode == 0
        for line in r.stdout.splitlines():
            lines.append(f"{name} {s} x86_64 {line}")
    if not args.aarch64 or name not in args.aarch64:
        return ok, lines

    arm = os.path.join(work, name + ".aarch64")
    cmd[2] = "--target=aarch64"
    cmd[4] = arm
    r = run(cmd)
    if r.returncode:
        return False, lines + [f"{name}: aarch64 compile FAILED\n{r.stdout}"]
    for s in sets:
        # The x86_64 outputs become the reference for the AArch64 run.
        ref = os.path.join(work, f"{name}.{s}")
        for f in os.listdir(os.path.join(model_dir, s)):
            if f.startswith("input_"):
                os.symlink(os.path.join(model_dir, s, f), os.path.join(ref, f))
        arm_rtol = max(args.arm_rtol, RTOL.get(name, args.arm_rtol))
        r = run([args.qemu, "-L", args.sysroot, "-cpu", "max", args.arm_runner,
                 arm, "--inputs", ref, "--compare", "--rtol", str(arm_rtol)])
        ok &= r.returncode == 0
        for line in r.stdout.splitlines():
            lines.append(f"{name} {s} aarch64-vs-x86_64 {line}")
    return ok, lines


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--bin", required=True, help="folder with dsmp-compile, dsmprt-run")
    p.add_argument("--models", required=True)
    p.add_argument("--only", nargs="*", help="models to check (default: all runnable)")
    p.add_argument("--sets", type=int, default=2)
    p.add_argument("--aarch64", nargs="*", default=[],
                   help="models also checked on AArch64 under qemu")
    p.add_argument("--arm-runner", help="the AArch64 dsmprt-run")
    p.add_argument("--qemu", default="qemu-aarch64")
    p.add_argument("--sysroot", default="/usr/aarch64-linux-gnu")
    p.add_argument("--arm-rtol", type=float, default=1e-5)
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = p.parse_args()

    names = args.only or sorted(
        d for d in os.listdir(args.models)
        if os.path.isfile(os.path.join(args.models, d, "model.onnx")))
    work = tempfile.mkdtemp(prefix="dsmp-aot-")
    try:
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            results = list(pool.map(lambda n: check_model(n, args, work), names))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    passed = 0
    for name, (ok, lines) in zip(names, results):
        for line in lines:
            print(line)
        print(f"{name}: {'PASS' if ok else 'FAIL'}")
        passed += ok
    arm = sorted(n for n in names if n in args.aarch64)
    print(f"aot: {passed} of {len(names)} models pass"
          + (f" (aarch64 also: {', '.join(arm)})" if arm else ""))
    return 0 if passed == len(names) else 1


if __name__ == "__main__":
    sys.exit(main())
