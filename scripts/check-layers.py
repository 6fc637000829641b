#!/usr/bin/env python3
"""Checks dsmp's layering against the table in docs/architecture.md.

usage: check-layers.py [ROOT]

The table (the first one whose header is `| layer | folders | libraries |
uses |`) gives each layer its folders or files, its CMake libraries and the
layers it may use; a layer may use those and, through them, everything
below (the transitive closure). `MLIR` in `uses` allows a layer's own files
to include `mlir/` and `llvm/` headers and to link MLIR/LLVM; it is not
inherited, so the runtime and the Python extension stay free of them.

Every `#include "..."` of every source file and every library named on a
CMake link line (add_mlir_library's LINK_LIBS, target_link_libraries) is an
edge from the file's (or target's) layer to the included file's (or
library's). An edge that the table does not allow is printed as
`FILE:LINE: LAYER -> LAYER: WHAT` and the script exits 1. Files in no layer
are reported too, so a new folder cannot escape the table, and so is a file
outside lib/ that includes a header under lib/ (private to the libraries).
"""
import os
import re
import sys

SOURCE_SUFFIXES = (".cpp", ".h", ".c", ".inc", ".td")
SKIP_DIRS = {".git", ".venv", "build", "docs", "examples", "bench", "scripts",
             "__pycache__"}


def parse_table(path):
    """{layer: (paths, libraries, uses)} from the architecture doc."""
    layers = {}
    in_table = False
    for line in open(path, encoding="utf-8"):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not in_table:
            if [c.lower() for c in cells] == ["layer", "folders", "libraries", "uses"]:
                in_table = True
            continue
        if not line.startswith("|"):
            break
        if set(line.strip()) <= set("|-: "):
            continue
        name, folders, libraries, uses = cells
        ticked = lambda text: re.findall(r"`([^`]+)`", text)
        layers[name] = (ticked(folders), ticked(libraries),
                        [u.strip() for u in uses.split(",") if u.strip()])
    if not layers:
        sys.exit(f"{path}: no `| layer | folders | libraries | uses |` table")
    for name, (_, _, uses) in layers.items():
        for use in uses:
            if use != "MLIR" and use not in layers:
                sys.exit(f"{path}: layer '{name}' uses unknown layer '{use}'")
    return layers


def closure(layers):
    allowed = {}

    def visit(name, stack=()):
        if name in allowed:
            return allowed[name]
        if name in stack:
            sys.exit(f"the layer table has a cycle through '{name}'")
        result = set()
        for use in layers[name][2]:
            if use != "MLIR":
                result.add(use)
                result |= visit(use, stack + (name,)) - {"MLIR"}
        if "MLIR" in layers[name][2]:
            result.add("MLIR")  # direct only: what a layer includes itself
        allowed[name] = result
        return result

    for name in layers:
        visit(name)
    return allowed


class Map:
    def __init__(self, layers):
        self.paths = sorted(((p.rstrip("/"), name) for name, (paths, _, _) in layers.items()
                             for p in paths), key=lambda x: -len(x[0]))
        self.libraries = {lib: name for name, (_, libs, _) in layers.items() for lib in libs}

    def layer_of(self, rel):
        for prefix, name in self.paths:
            if rel == prefix or rel.startswith(prefix + "/"):
                return name
        return None


def source_files(root):
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root)
        dirnames[:] = sorted(d for d in dirnames
                             if not (rel_dir == "." and d in SKIP_DIRS) and d != "__pycache__")
        for f in sorted(filenames):
            if f.endswith(SOURCE_SUFFIXES):
                yield os.path.normpath(os.path.join(rel_dir, f))


def resolve_include(root, rel_file, target):
    """The repository path an include names, or None (external/generated)."""
    for base in ("", "include", os.path.dirname(rel_file)):
        candidate = os.path.normpath(os.path.join(base, target))
        if os.path.exists(os.path.join(root, candidate)):
            return candidate
    # Generated .inc files live in the build tree at the source's path.
    if target.endswith(".inc") and "/" in target:
        return target
    return None


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(__file__), ".."))
    layers = parse_table(os.path.join(root, "docs", "architecture.md"))
    allowed = closure(layers)
    where = Map(layers)
    problems = []
    edges = 0

    def check(origin, src, dst, what):
        nonlocal edges
        edges += 1
        if src == dst or dst in allowed[src]:
            return
        problems.append(f"{origin}: {src} -> {dst}: {what}")

    include = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
    files = 0
    for rel in source_files(root):
        if rel.startswith("test/") and not rel.startswith("test/lib/"):
            continue  # tests may use any layer
        layer = where.layer_of(rel)
        if layer is None:
            problems.append(f"{rel}: in no layer of docs/architecture.md's table")
            continue
        files += 1
        for number, line in enumerate(open(os.path.join(root, rel), encoding="utf-8",
                                           errors="replace"), 1):
            m = include.match(line)
            if not m:
                continue
            target = m.group(1)
            if target.startswith(("mlir/", "llvm/")):
                check(f"{rel}:{number}", layer, "MLIR", f'#include "{target}"')
                continue
            resolved = resolve_include(root, rel, target)
            if resolved is None:
                continue
            dst = where.layer_of(resolved)
            # lib/'s headers are its own: others use include/ and dialects/.
            if resolved.startswith("lib/") and not rel.startswith("lib/"):
                problems.append(f"{rel}:{number}: includes the private header "
                                f"'{target}' (lib/ is for lib/ only)")
                continue
            if dst is None:
                problems.append(f"{rel}:{number}: includes '{target}', which is in no layer")
                continue
            check(f"{rel}:{number}", layer, dst, f'#include "{target}"')

    link = re.compile(r"(add_mlir_library|add_mlir_dialect_library|add_library|"
                      r"add_executable|add_llvm_executable|nanobind_add_module|"
                      r"target_link_libraries)\s*\(([^)]*)\)", re.S)
    for rel in source_files_cmake(root):
        folder_layer = where.layer_of(os.path.dirname(rel) or ".")
        text = re.sub(r"#[^\n]*", "", open(os.path.join(root, rel), encoding="utf-8").read())
        for kind, body in link.findall(text):
            words = body.split()
            if not words:
                continue
            target = words[0]
            src = where.libraries.get(target, folder_layer)
            if src is None:
                continue
            if kind == "target_link_libraries":
                libs = words[1:]
            else:
                libs = words[words.index("LINK_LIBS") + 1:] if "LINK_LIBS" in words else []
            for lib in libs:
                if lib in ("PUBLIC", "PRIVATE", "INTERFACE") or lib.startswith("${"):
                    continue
                if lib in ("MLIR", "LLVM") or lib.startswith(("MLIR", "LLVM")):
                    check(rel, src, "MLIR", f"links {lib}")
                elif lib in where.libraries:
                    check(rel, src, where.libraries[lib], f"{target} links {lib}")

    for p in problems:
        print(p)
    print(f"check-layers: {files} files, {edges} edges, {len(layers)} layers: "
          f"{len(problems)} problem{'s' if len(problems) != 1 else ''}")
    return 1 if problems else 0


def source_files_cmake(root):
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root)
        dirnames[:] = sorted(d for d in dirnames if not (rel_dir == "." and d in SKIP_DIRS))
        if rel_dir.startswith("test") and not rel_dir.startswith(os.path.join("test", "lib")):
            continue
        if "CMakeLists.txt" in filenames and rel_dir != ".":
            yield os.path.normpath(os.path.join(rel_dir, "CMakeLists.txt"))


if __name__ == "__main__":
    sys.exit(main())
