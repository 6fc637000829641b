#!/usr/bin/env python3
"""Runs dsmp-translate --import-onnx on every model in expected.tsv and
requires, for each: exit status 1 (not a crash), exactly one line on stderr
that names the file and contains the expected text, and no output or weight
file left behind.

usage: check_corpus.py BIN CORPUS_DIR WORKDIR [--sanitizers]
"""
import os
import subprocess
import sys

bin_dir, corpus, work = sys.argv[1:4]
os.makedirs(work, exist_ok=True)
failures = 0
count = 0
with open(os.path.join(corpus, "expected.tsv")) as f:
    rows = [l.rstrip("\n").split("\t") for l in f if not l.startswith("#")]
for name, expect in rows:
    count += 1
    model = os.path.join(corpus, name)
    out = os.path.join(work, name + ".mlir")
    for stale in (out, out + ".weights"):
        if os.path.exists(stale):
            os.remove(stale)
    try:
        result = subprocess.run([f"{bin_dir}/dsmp-translate", "--import-onnx",
                                 model, "-o", out], capture_output=True,
                                text=True, timeout=60)
    except subprocess.TimeoutExpired:
        print(f"FAIL {name}: hangs")
        failures += 1
        continue
    lines = result.stderr.strip().splitlines()
    problems = []
    if result.returncode != 1:
        problems.append(f"exit status {result.returncode}")
    if len(lines) != 1:
        problems.append(f"{len(lines)} lines on stderr")
    prefix = "dsmp-translate: error: " + model + ": "
    if not lines or not lines[0].startswith(prefix):
        problems.append("the message does not start with the tool and the file name")
    if expect not in result.stderr:
        problems.append(f"missing {expect!r}")
    if os.path.exists(out) or os.path.exists(out + ".weights"):
        problems.append("left an output file")
    if problems:
        failures += 1
        print(f"FAIL {name}: {'; '.join(problems)}\n    {result.stderr.strip()[:400]}")
    else:
        print(f"ok   {name}: {lines[0][len(prefix):]}")
print(f"{count - failures} passed, {failures} failed")
if count < 30:
    print(f"FAIL the corpus holds {count} models; it must hold at least 30")
    failures += 1
sys.exit(1 if failures else 0)
