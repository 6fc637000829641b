"""Compiles every shared model for one GPU into a device artifact and
prints, per model, what device_code.py finds in it (one line each).

  compile_all.py --target sm_80 --models DIR --out DIR --bin DIR --scripts DIR [--only NAME ...]
"""
import argparse
import os
import subprocess
import sys

# Inputs a model branches on, fixed as its test data has them.
FIXED = {"silero_vad_v5": ["--fix-input", "sr=16000"]}


def main():
    parser = argparse.ArgumentParser()
    for flag in ("--target", "--models", "--out", "--bin", "--scripts"):
        parser.add_argument(flag, required=True)
    parser.add_argument("--only", nargs="+", help="these models (default: every one)")
    args = parser.parse_args()
    failed = 0
    for name in sorted(os.listdir(args.models)):
        model = os.path.join(args.models, name, "model.onnx")
        if not os.path.isfile(model) or (args.only and name not in args.only):
            continue
        out = os.path.join(args.out, name)
        compile = subprocess.run(
            [os.path.join(args.bin, "dsmp-compile"), model,
             f"--target={args.target}", "-o", out, "--force", "--quiet",
             "--batch-sizes=0", "--shapes-from",
             os.path.join(args.models, name, "test_data_set_0")] +
            FIXED.get(name, []), capture_output=True, text=True)
        if compile.returncode:
            print(f"{name}: COMPILE FAILED\n{compile.stderr}")
            failed += 1
            continue
        listing = subprocess.run(
            [sys.executable, os.path.join(args.scripts, "device_code.py"),
             "artifact", out], capture_output=True, text=True)
        if listing.returncode:
            print(f"{name}: NO CODE OBJECT\n{listing.stderr}")
            failed += 1
            continue
        for line in listing.stdout.splitlines():
            print(f"{name}: {line}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
