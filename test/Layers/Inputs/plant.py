#!/usr/bin/env python3
"""Copies the source tree's layered files (sources, CMakeLists.txt and
docs/architecture.md) to DEST and plants one forbidden edge there.

usage: plant.py SRC DEST include|link|private|none
"""
import os
import shutil
import sys

src, dest, kind = sys.argv[1:4]
skip = {".git", ".venv", "build", "__pycache__"}
for dirpath, dirnames, filenames in os.walk(src):
    rel = os.path.relpath(dirpath, src)
    dirnames[:] = [d for d in dirnames if not (rel == "." and d in skip) and d != "__pycache__"]
    for f in filenames:
        if f.endswith((".cpp", ".h", ".c", ".inc", ".td")) or f == "CMakeLists.txt" or \
                (rel == "docs" and f == "architecture.md"):
            os.makedirs(os.path.join(dest, rel), exist_ok=True)
            shutil.copy(os.path.join(dirpath, f), os.path.join(dest, rel, f))


def edit(path, old, new):
    path = os.path.join(dest, path)
    text = open(path).read()
    assert old in text, (path, old)
    open(path, "w").write(text.replace(old, new, 1))


if kind == "include":  # the dialect reaching up into the precision passes
    edit("dialects/Dsmp/IR/DsmpOps.cpp", '#include "dialects/Dsmp/IR/DsmpOps.h"\n',
         '#include "dialects/Dsmp/IR/DsmpOps.h"\n#include "passes/Precision/Passes.h"\n')
elif kind == "link":  # conversion linking the precision passes
    edit("lib/Conversion/CMakeLists.txt", "  DsmpTransforms\n", "  DsmpTransforms\n  DsmpPrecision\n")
elif kind == "private":  # a tool reading a library's private header
    edit("tools/dsmp-opt/dsmp-opt.cpp", '#include "dsmp/InitAll.h"\n',
         '#include "dsmp/InitAll.h"\n#include "lib/Conversion/Pipelines.h"\n')
