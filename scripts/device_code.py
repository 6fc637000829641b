#!/usr/bin/env python3
"""What a dsmp device artifact holds for its GPU, read from the files.

  device_code.py artifact ART
      The code objects embedded in ART/model.so (the ELF images of machine
      EM_CUDA or EM_AMDGPU that gpu-module-to-binary made), each listed by
      llvm-readelf: its machine, its GPU and its kernels. Fails when the
      manifest names no device, or model.so holds no code object for it.
  device_code.py ptx MLIR --chip sm_80 [--dump FILE]
      The PTX of each gpu.binary in an LLVM-dialect module made with
      format=isa, assembled by CUDA's ptxas for the chip.

Prints one line per code object; the lit tests check them.
"""
import argparse
import os
import re
import struct
import subprocess
import sys
import tempfile

EM_CUDA, EM_AMDGPU = 190, 224
READELF = "/usr/lib/llvm-22/bin/llvm-readelf"
PTXAS = os.path.join(os.environ.get("DSMP_CUDA_TOOLKIT", "/usr/local/cuda"),
                     "bin", "ptxas")


def embedded_elves(data):
    """(machine, bytes) of each 64-bit little-endian ELF inside `data`."""
    found, at = [], 0
    while True:
        at = data.find(b"\x7fELF\x02\x01", at)
        if at < 0:
            return found
        machine = struct.unpack_from("<H", data, at + 18)[0]
        phoff, shoff = struct.unpack_from("<QQ", data, at + 32)
        phentsize, phnum, shentsize, shnum = struct.unpack_from(
            "<HHHH", data, at + 54)
        size = max(shoff + shentsize * shnum, phoff + phentsize * phnum)
        if machine in (EM_CUDA, EM_AMDGPU) and at + size <= len(data):
            found.append((machine, data[at:at + size]))
            at += size
        else:
            at += 4


def kernels_of(image):
    """The kernel symbols llvm-readelf lists in a code object."""
    with tempfile.NamedTemporaryFile(suffix=".o") as f:
        f.write(image)
        f.flush()
        out = subprocess.run([READELF, "--symbols", "--file-header", f.name],
                             capture_output=True, text=True, check=True).stdout
    flags = re.search(r"Flags:\s*(.*)", out)
    names = []
    for line in out.splitlines():
        fields = line.split()
        # Num: Value Size Type Bind Vis [<other>] Ndx Name
        if len(fields) >= 8 and fields[3] == "FUNC" and fields[4] == "GLOBAL":
            names.append(fields[-1])
    return (flags.group(1).strip() if flags else ""), names


def artifact(folder):
    manifest = open(os.path.join(folder, "manifest.txt")).read()
    device = re.search(r"^device (\S+)$", manifest, re.M)
    if not device:
        sys.exit(f"device_code.py: {folder} is not a device artifact")
    data = open(os.path.join(folder, "model.so"), "rb").read()
    elves = embedded_elves(data)
    want = EM_CUDA if device.group(1).startswith("sm_") else EM_AMDGPU
    elves = [(m, image) for m, image in elves if m == want]
    if not elves:
        sys.exit(f"device_code.py: {folder}/model.so holds no code object "
                 f"for {device.group(1)}")
    for machine, image in elves:
        flags, names = kernels_of(image)
        kind = "EM_CUDA" if machine == EM_CUDA else "EM_AMDGPU"
        print(f"{device.group(1)}: {kind} code object, {len(image)} bytes, "
              f"flags [{flags}], {len(names)} kernels: "
              f"{' '.join(sorted(names)[:4])}")


def ptx(module, chip, dump):
    text = open(module).read()
    objects = re.findall(r'assembly = "((?:[^"\\]|\\.)*)"', text)
    if not objects:
        sys.exit(f"device_code.py: no PTX in {module} (format=isa?)")
    for index, escaped in enumerate(objects):
        source = re.sub(r"\\([0-9A-Fa-f]{2})",
                        lambda m: chr(int(m.group(1), 16)), escaped)
        source = source.replace('\\"', '"').replace("\\\\", "\\")
        if dump:
            open(dump, "w" if index == 0 else "a").write(source)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "kernels.ptx")
            open(path, "w").write(source)
            result = subprocess.run(
                [PTXAS, f"-arch={chip}", path, "-o",
                 os.path.join(tmp, "kernels.cubin")],
                capture_output=True, text=True)
        entries = len(re.findall(r"^\.visible \.entry ", source, re.M))
        if result.returncode:
            sys.exit(f"device_code.py: ptxas -arch={chip} failed:\n"
                     f"{result.stderr}")
        version = re.search(r"^\.version (\S+)", source, re.M)
        print(f"{chip}: PTX {version.group(1) if version else '?'}, "
              f"{entries} kernels, ptxas -arch={chip}: ok")


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="mode", required=True)
    a = sub.add_parser("artifact")
    a.add_argument("folder")
    p = sub.add_parser("ptx")
    p.add_argument("module")
    p.add_argument("--chip", required=True)
    p.add_argument("--dump")
    args = parser.parse_args()
    if args.mode == "artifact":
        artifact(args.folder)
    else:
        ptx(args.module, args.chip, args.dump)


if __name__ == "__main__":
    main()
