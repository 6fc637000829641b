#!/usr/bin/env python3
"""Replays a compile's printed pipeline in dsmp-opt and compares.

usage: replay.py BIN MODEL WORK COMPILE_OUT FORMATS_MLIR COMPILE_IR

COMPILE_OUT is dsmp-compile's stdout with --print-pipeline (one
`builtin.module(...)` line per variant), FORMATS_MLIR its --emit-mlir
module, COMPILE_IR its stderr under --mlir-print-ir-after=dsmp-emit-entry-point
(the LLVM dialect module before code generation, one dump per variant).
The first variant's pipeline runs up to the precision passes' end on MODEL
(compared with FORMATS_MLIR); every variant's pipeline runs whole, its
weight file moved into WORK (compared with that variant's dump).
"""
import os
import re
import subprocess
import sys

bin_dir, model, work, compile_out, formats_mlir, compile_ir = sys.argv[1:7]
lines = [l for l in open(compile_out).read().splitlines() if l.startswith("builtin.module(")]
print("pipelines:", len(lines))
pipeline = lines[0]
weights = os.path.join(work, "weights.bin")
pipeline = re.sub(r"weights-file=[^ }]*", "weights-file=" + weights, pipeline)
cut = pipeline.index(",dsmp-externalize-constants")
precision = pipeline[:cut] + ")"
print("assignment:", re.search(r"dsmp-assign-precision\{[^}]*\}?", pipeline) is not None,
      "keep-f32-ops:", "keep-f32-ops={" in pipeline,
      "carrier-ops:", "carrier-ops={" in pipeline)


def opt(text, out):
    subprocess.run([os.path.join(bin_dir, "dsmp-opt"), model, "--pass-pipeline=" + text,
                    "-o", out], check=True)
    return open(out).read()


def same(a, b):
    a, b = a.rstrip("\n").splitlines(), b.rstrip("\n").splitlines()
    if a == b:
        return f"identical ({len(a)} lines)"
    diff = next(i for i, (x, y) in enumerate(zip(a + [""], b + [""])) if x != y)
    return f"DIFFER at line {diff + 1}:\n  {a[diff][:300] if diff < len(a) else ''}\n  " \
           f"{b[diff][:300] if diff < len(b) else ''}"


replayed = opt(precision, os.path.join(work, "formats.mlir"))
print("formats:", same(open(formats_mlir).read(), replayed))
formats = re.findall(r"dsmp\.assigned = #dsmp\.format<(\w+)>", replayed)
print("ops with a format:", len(formats) > 0, "16-bit:", any(f in ("f16", "bf16") for f in formats))
dumps = re.split(r"^// -----// IR Dump[^\n]*\n", open(compile_ir).read(), flags=re.M)[1:]
print("dumps:", len(dumps))
for index, line in enumerate(lines):
    variant = re.sub(r"weights-file=[^ }]*", "weights-file=" + weights, line)
    replayed = opt(variant, os.path.join(work, f"llvm{index}.mlir"))
    print(f"variant {index} llvm dialect:", same(dumps[index], replayed))
    print(f"variant {index} entry point:", f"llvm.func @dsmp_model_run_{index}(" in replayed)
