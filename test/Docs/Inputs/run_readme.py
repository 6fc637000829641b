#!/usr/bin/env python3
"""Runs the README's command blocks as written, from the repository root.

usage: run_readme.py SRC_ROOT PYTHONPATH [--benchmarks]

Every ```sh block (the benchmarks' block only with --benchmarks) runs as
one bash script under `set -euo pipefail`, with the venv's python3 first on
PATH; every ```python block runs in that Python with the package on
PYTHONPATH. Prints one line per block: ok, or the failing output.
"""
import os
import re
import subprocess
import sys

src, pythonpath = sys.argv[1:3]
benchmarks = "--benchmarks" in sys.argv
readme = open(os.path.join(src, "README.md")).read()
blocks = re.findall(r"^```(sh|python)\n(.*?)^```", readme, flags=re.S | re.M)
env = dict(os.environ, PYTHONPATH=pythonpath,
           PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"])
failures = 0
for index, (kind, text) in enumerate(blocks):
    first = text.strip().splitlines()[0]
    if first.startswith("bench/") and not benchmarks:
        print(f"block {index} ({kind}): skipped, benchmarks (--benchmarks runs them)")
        continue
    if first.startswith(("scripts/run-example.sh", "scripts/setup.sh")):
        # They install, build and run the suite: the suite runs in what they
        # built.
        print(f"block {index} ({kind}): skipped, the set-up commands")
        continue
    command = (["bash", "-c", "set -euo pipefail\n" + text] if kind == "sh"
               else [sys.executable, "-c", text])
    result = subprocess.run(command, cwd=src, env=env, capture_output=True, text=True)
    if result.returncode == 0:
        print(f"block {index} ({kind}): ok, {len(text.strip().splitlines())} lines")
    else:
        failures += 1
        print(f"block {index} ({kind}): FAILED rc {result.returncode}\n"
              f"{(result.stdout + result.stderr)[-2000:]}")
print(f"{failures} failed")
