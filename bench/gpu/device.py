#!/usr/bin/env python3
"""The GPU machine's half of bench/gpu/run.sh: runs one part that
prepare.py made and writes its results as JSON lines.

Needs numpy and PyTorch (CUDA) only: inputs are written here as ONNX
TensorProto files by hand, and dsmp's artifacts run through the carried
dsmprt-run. Each model runs on its stored test data (FP32 within 1e-4
relative, a mixed artifact by its own metric and budget), then, for the
batched ones, is timed at batch 32 beside torch (eager FP32, and
autocast(float16)) on the same architecture with random weights. Each
GEMM is timed beside torch.matmul in the same precision.
"""
import argparse
import json
import os
import re
import struct
import subprocess
import sys
import tempfile
import time

import numpy as np

DTYPES = {"f32": (np.float32, 1), "f16": (np.float16, 10),
          "i64": (np.int64, 7), "i32": (np.int32, 6), "bf16": (None, 16)}


def varint(value):
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def tensor_proto(name, array, data_type):
    """An ONNX TensorProto: dims (1), data_type (2), name (8), raw_data (9)."""
    out = bytearray()
    for d in array.shape:
        out += b"\x08" + varint(int(d))
    out += b"\x10" + varint(data_type)
    encoded = name.encode()
    out += b"\x42" + varint(len(encoded)) + encoded
    raw = np.ascontiguousarray(array).tobytes()
    out += b"\x4a" + varint(len(raw)) + raw
    return bytes(out)


def manifest_inputs(artifact, variant_index):
    """[(name, dtype, dims)] of the inputs of a variant of the manifest."""
    variants, current = [], None
    for line in open(os.path.join(artifact, "manifest.txt")):
        fields = line.split()
        if fields[0] == "variant":
            current = []
            variants.append(current)
        elif fields[0] == "input" and current is not None:
            rank = int(fields[3])
            current.append((fields[1], fields[2],
                            [int(x) for x in fields[4:4 + rank]]))
    return variants[variant_index]


def random_inputs(artifact, variant_index, folder):
    rng = np.random.default_rng(0)
    for index, (name, dtype, dims) in enumerate(
            manifest_inputs(artifact, variant_index)):
        np_type, code = DTYPES[dtype]
        if np_type in (np.int64, np.int32):
            array = rng.integers(0, 100, dims).astype(np_type)
        else:
            array = rng.standard_normal(dims).astype(np_type)
        with open(os.path.join(folder, f"input_{index}.pb"), "wb") as f:
            f.write(tensor_proto(name, array, code))


def dsmprt(part, args, timeout, extra_env=None):
    env = dict(os.environ, LD_LIBRARY_PATH=os.path.join(part, "lib"),
               **(extra_env or {}))
    start = time.time()
    try:
        result = subprocess.run([os.path.join(part, "bin", "dsmprt-run")] + args,
                                capture_output=True, text=True, env=env,
                                timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, f"timed out after {timeout} s", time.time() - start
    text = result.stdout + result.stderr
    median = re.search(r"median ([0-9.]+) ms", text)
    return (float(median.group(1)) if median else None,
            text.strip() if result.returncode else "ok", time.time() - start)


def torch_model(name, batch, seq=None):
    """The torch side of a timed model: the same architecture, random
    weights."""
    import torch
    import torchvision
    if name.startswith("resnet18"):
        return torchvision.models.resnet18(), torch.randn(batch, 3, 224, 224)
    if name.startswith("mobilenet_v2"):
        return torchvision.models.mobilenet_v2(), torch.randn(batch, 3, 224, 224)
    # bert-tiny: 2 layers, hidden 128, 2 heads, intermediate 512.
    layer = torch.nn.TransformerEncoderLayer(128, 2, 512, batch_first=True,
                                             activation="gelu")
    model = torch.nn.Sequential(torch.nn.Embedding(30522, 128),
                                torch.nn.TransformerEncoder(layer, 2))
    return model, torch.randint(0, 30522, (batch, seq or 128))


def torch_time(fn, repeat=20):
    import torch
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(repeat):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    return float(np.median(times))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("part")
    parser.add_argument("--results", required=True)
    parser.add_argument("--budget", type=float, default=420,
                        help="seconds for this part; later entries are skipped")
    args = parser.parse_args()
    import torch
    deadline = time.time() + args.budget
    plan = json.load(open(os.path.join(args.part, "plan.json")))
    out = open(args.results, "a")

    def emit(record):
        out.write(json.dumps(record) + "\n")
        out.flush()
        print(json.dumps(record), flush=True)

    emit({"device": torch.cuda.get_device_name(0),
          "torch": torch.__version__, "part": os.path.basename(args.part)})
    torch_done = set()
    for entry in plan:
        left = deadline - time.time()
        if left < 10:
            emit(dict(entry, skipped="out of time"))
            continue
        artifact = os.path.join(args.part, entry["artifact"])
        if "model" in entry:
            compare = ["--compare"]
            if entry["kind"] == "fp32":
                compare += ["--rtol", "1e-4"]
            _, status, _ = dsmprt(args.part, [artifact, "--inputs",
                                              os.path.join(args.part, entry["data"])]
                                  + compare, min(120, left))
            record = dict(entry, check=status.splitlines()[-1] if status else "")
            if entry.get("batch"):
                with tempfile.TemporaryDirectory() as tmp:
                    random_inputs(artifact, 1, tmp)
                    median, status, _ = dsmprt(
                        args.part, [artifact, "--inputs", tmp, "--repeat", "20"],
                        min(180, deadline - time.time()))
                record["dsmp_ms"] = median
                if median is None:
                    record["time_error"] = status[-300:]
                key = entry["model"]
                if key not in torch_done:
                    torch_done.add(key)
                    seq = None
                    if key.startswith("tiny_bert"):
                        seq = manifest_inputs(artifact, 1)[0][2][-1]
                    model, x = torch_model(key, entry["batch"], seq)
                    model, x = model.cuda().eval(), x.cuda()
                    with torch.no_grad():
                        torch.backends.cuda.matmul.allow_tf32 = False
                        torch.backends.cudnn.allow_tf32 = False
                        record["torch_fp32_ms"] = torch_time(lambda: model(x))
                        with torch.autocast("cuda", torch.float16):
                            record["torch_autocast_f16_ms"] = torch_time(
                                lambda: model(x))
            emit(record)
        else:
            n, fmt = entry["n"], entry["gemm"]
            routes = {}
            with tempfile.TemporaryDirectory() as tmp:
                random_inputs(artifact, 0, tmp)
                # Both routes: cuBLASLt, and the kernels dsmp generated.
                for route in ("library", "generated"):
                    slow = route == "generated" and fmt in ("f32", "e4m3")
                    if slow and n > 4096:
                        continue  # one thread per output: minutes
                    routes[route] = dsmprt(
                        args.part, [artifact, "--inputs", tmp, "--repeat",
                                    "1" if slow else "5"],
                        min(150, deadline - time.time()),
                        {"DSMP_GPU_GEMM": route})
            median, status, _ = routes["library"]
            a = torch.randn(n, n, device="cuda")
            b = torch.randn(n, n, device="cuda")
            torch.backends.cuda.matmul.allow_tf32 = fmt == "tf32"
            if fmt in ("bf16", "f16"):
                dtype = torch.bfloat16 if fmt == "bf16" else torch.float16
                a, b = a.to(dtype), b.to(dtype)
            if fmt == "e4m3":
                # torch's FP8 GEMM (cuBLASLt underneath): A row-major, B
                # column-major (a transposed row-major weight), per-tensor
                # scales, an f32 result.
                scale = torch.tensor(1.0, device="cuda")
                a8 = a.to(torch.float8_e4m3fn)
                b8 = b.to(torch.float8_e4m3fn).t()
                product = lambda: torch._scaled_mm(  # noqa: E731
                    a8, b8, scale_a=scale, scale_b=scale,
                    out_dtype=torch.float32)
            else:
                product = lambda: torch.matmul(a, b)  # noqa: E731
            torch_ms = torch_time(product, repeat=10)
            flops = 2.0 * n ** 3
            generated = routes.get("generated", (None, "not run", 0))[0]
            emit(dict(entry, dsmp_ms=median, generated_ms=generated,
                      torch_ms=torch_ms,
                      dsmp_tflops=flops / median / 1e9 if median else None,
                      generated_tflops=flops / generated / 1e9
                      if generated else None,
                      torch_tflops=flops / torch_ms / 1e9,
                      check=status if median is None else "ok"))
    out.close()


if __name__ == "__main__":
    main()
