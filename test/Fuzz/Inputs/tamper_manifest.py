#!/usr/bin/env python3
"""Writes manifests for the artifact fuzzer's replay: ARTIFACT's own, and
the same with what an edit could change behind the file checksums (other
input and output dims, more or fewer variants, other weight sizes, other
dtypes, a fixed input value). libdsmprt must refuse each but the first.

usage: tamper_manifest.py ARTIFACT OUT_DIR
"""
import os
import sys

artifact, out = sys.argv[1:3]
os.makedirs(out, exist_ok=True)
lines = open(os.path.join(artifact, "manifest.txt")).read().rstrip("\n").split("\n")
cases = {"original": lines}


def edit(name, fn):
    new = list(lines)
    fn(new)
    cases[name] = new


def first(new, kind):
    return next(i for i, l in enumerate(new) if l.startswith(kind + " "))


def set_dim(kind, k, value):
    def fn(new):
        i = first(new, kind)
        f = new[i].split()
        f[4 + k] = str(value)
        new[i] = " ".join(f)
    return fn


edit("input_batch_2x", set_dim("input", 0, 2))
edit("input_dim_huge", set_dim("input", 1, 1 << 40))
edit("output_dim_half", lambda n: set_dim("output", 1, 1)(n))
edit("input_dtype", lambda n: n.__setitem__(first(n, "input"), n[first(n, "input")].replace(" f32 ", " f16 ")))
edit("second_variant", lambda n: n.extend(["variant dsmp_model_run_0"] +
                                          [l for l in lines if l.startswith(("input ", "output "))]))
edit("weights_size", lambda n: n.__setitem__(first(n, "weights"),
                                             " ".join(n[first(n, "weights")].split()[:2] + ["0"] +
                                                      n[first(n, "weights")].split()[3:])))
edit("no_outputs", lambda n: [n.pop(i) for i in reversed(range(len(n))) if n[i].startswith("output ")])
for name, new in cases.items():
    open(os.path.join(out, name + ".txt"), "w").write("\n".join(new) + "\n")
print(len(cases), "manifests")
